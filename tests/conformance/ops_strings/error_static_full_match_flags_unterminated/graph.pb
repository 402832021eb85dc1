
,
xPlaceholder*
dtype0*
shape:
A
StaticRegexFullMatchStaticRegexFullMatchx*
pattern(?i
.
outIdentityStaticRegexFullMatch*
T0
"ª