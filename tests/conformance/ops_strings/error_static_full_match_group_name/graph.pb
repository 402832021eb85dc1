
,
xPlaceholder*
dtype0*
shape:
E
StaticRegexFullMatchStaticRegexFullMatchx*
pattern	(?P<>a)
.
outIdentityStaticRegexFullMatch*
T0
"ª