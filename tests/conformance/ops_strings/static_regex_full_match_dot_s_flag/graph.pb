
,
xPlaceholder*
dtype0*
shape:
M
StaticRegexFullMatchStaticRegexFullMatchx*
pattern(?s)line1.line2
.
outIdentityStaticRegexFullMatch*
T0
"ª