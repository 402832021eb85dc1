
,
xPlaceholder*
dtype0*
shape:
p
StaticRegexReplaceStaticRegexReplacex*
pattern\x61|\x{e9}|\141*
replace_global(*
rewrite*
,
outIdentityStaticRegexReplace*
T0"ª