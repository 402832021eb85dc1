
,
xPlaceholder*
dtype0*
shape:
Q
StaticRegexFullMatchStaticRegexFullMatchx* 
pattern((a{10}){10}){0,10}
.
outIdentityStaticRegexFullMatch*
T0
"ª