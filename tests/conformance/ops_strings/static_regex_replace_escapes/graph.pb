
,
xPlaceholder*
dtype0*
shape:
h
StaticRegexReplaceStaticRegexReplacex*
pattern
\.|\t|\n*
replace_global(*
rewrite|
,
outIdentityStaticRegexReplace*
T0"ª