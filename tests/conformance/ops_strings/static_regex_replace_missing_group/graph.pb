
,
xPlaceholder*
dtype0*
shape:
d
StaticRegexReplaceStaticRegexReplacex*
pattern(o)*
replace_global(*
rewrite\2
,
outIdentityStaticRegexReplace*
T0"ª