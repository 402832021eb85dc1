
,
xPlaceholder*
dtype0*
shape:
Q
StaticRegexFullMatchStaticRegexFullMatchx* 
pattern[a-z.]+@[a-z]+\.com
.
outIdentityStaticRegexFullMatch*
T0
"ª