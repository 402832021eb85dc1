
,
xPlaceholder*
dtype0*
shape:
@
StaticRegexFullMatchStaticRegexFullMatchx*
pattern\1
.
outIdentityStaticRegexFullMatch*
T0
"ª