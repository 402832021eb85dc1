
,
xPlaceholder*
dtype0*
shape:
O
StaticRegexFullMatchStaticRegexFullMatchx*
pattern(?i)école école
.
outIdentityStaticRegexFullMatch*
T0
"�