
,
xPlaceholder*
dtype0*
shape:
A
StaticRegexFullMatchStaticRegexFullMatchx*
pattern\w*
.
outIdentityStaticRegexFullMatch*
T0
"ª