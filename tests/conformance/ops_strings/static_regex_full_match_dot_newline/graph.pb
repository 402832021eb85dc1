
,
xPlaceholder*
dtype0*
shape:
I
StaticRegexFullMatchStaticRegexFullMatchx*
patternline1.line2
.
outIdentityStaticRegexFullMatch*
T0
"ª