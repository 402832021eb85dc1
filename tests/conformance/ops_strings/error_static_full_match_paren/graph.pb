
,
xPlaceholder*
dtype0*
shape:
B
StaticRegexFullMatchStaticRegexFullMatchx*
pattern(abc
.
outIdentityStaticRegexFullMatch*
T0
"ª