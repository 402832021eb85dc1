
,
xPlaceholder*
dtype0*
shape:
@
StaticRegexFullMatchStaticRegexFullMatchx*
pattern*a
.
outIdentityStaticRegexFullMatch*
T0
"ª