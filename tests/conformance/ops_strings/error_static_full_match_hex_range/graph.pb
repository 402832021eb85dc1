
,
xPlaceholder*
dtype0*
shape:
H
StaticRegexFullMatchStaticRegexFullMatchx*
pattern
\x{110000}
.
outIdentityStaticRegexFullMatch*
T0
"ª