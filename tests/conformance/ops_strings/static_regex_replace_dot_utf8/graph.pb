
,
xPlaceholder*
dtype0*
shape:
b
StaticRegexReplaceStaticRegexReplacex*
patternl.*
replace_global(*
rewrite_
,
outIdentityStaticRegexReplace*
T0"ª