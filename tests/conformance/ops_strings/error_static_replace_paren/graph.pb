
,
xPlaceholder*
dtype0*
shape:
b
StaticRegexReplaceStaticRegexReplacex*
pattern(b*
replace_global(*
rewritex
,
outIdentityStaticRegexReplace*
T0"ª