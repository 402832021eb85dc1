
,
xPlaceholder*
dtype0*
shape:
F
StaticRegexFullMatchStaticRegexFullMatchx*
pattern
(abc){2}
.
outIdentityStaticRegexFullMatch*
T0
"ª