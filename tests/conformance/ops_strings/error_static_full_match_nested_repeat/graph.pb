
,
xPlaceholder*
dtype0*
shape:
E
StaticRegexFullMatchStaticRegexFullMatchx*
pattern	a{2}{3}
.
outIdentityStaticRegexFullMatch*
T0
"ª