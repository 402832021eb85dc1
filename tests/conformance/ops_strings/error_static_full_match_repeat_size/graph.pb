
,
xPlaceholder*
dtype0*
shape:
E
StaticRegexFullMatchStaticRegexFullMatchx*
pattern	a{1001}
.
outIdentityStaticRegexFullMatch*
T0
"ª