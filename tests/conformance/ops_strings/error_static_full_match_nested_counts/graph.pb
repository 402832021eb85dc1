
,
xPlaceholder*
dtype0*
shape:
K
StaticRegexFullMatchStaticRegexFullMatchx*
pattern(a{100}){100}
.
outIdentityStaticRegexFullMatch*
T0
"ª