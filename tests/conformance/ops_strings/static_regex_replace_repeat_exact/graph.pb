
,
xPlaceholder*
dtype0*
shape:
k
StaticRegexReplaceStaticRegexReplacex*
pattern(?:\w\w){2}*
replace_global(*
rewrite4
,
outIdentityStaticRegexReplace*
T0"ª