
,
xPlaceholder*
dtype0*
shape:
,
pPlaceholder*
dtype0*
shape:
&
RegexFullMatchRegexFullMatchxp
(
outIdentityRegexFullMatch*
T0
"ª