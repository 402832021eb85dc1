
,
xPlaceholder*
dtype0*
shape:
A
StaticRegexFullMatchStaticRegexFullMatchx*
pattern\d+
.
outIdentityStaticRegexFullMatch*
T0
"ª