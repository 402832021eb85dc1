
,
xPlaceholder*
dtype0*
shape:
N
StaticRegexFullMatchStaticRegexFullMatchx*
patternhello world|aaa|
.
outIdentityStaticRegexFullMatch*
T0
"ª