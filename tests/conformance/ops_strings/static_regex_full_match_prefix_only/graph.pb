
,
xPlaceholder*
dtype0*
shape:
C
StaticRegexFullMatchStaticRegexFullMatchx*
patternhello
.
outIdentityStaticRegexFullMatch*
T0
"ª