
,
xPlaceholder*
dtype0*
shape:
S
StaticRegexFullMatchStaticRegexFullMatchx*"
pattern(?)(?P<n>a+)(?P<n>a*)
.
outIdentityStaticRegexFullMatch*
T0
"ª