
,
xPlaceholder*
dtype0*
shape:
A
StaticRegexFullMatchStaticRegexFullMatchx*
patternab\
.
outIdentityStaticRegexFullMatch*
T0
"ª