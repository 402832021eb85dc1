
,
xPlaceholder*
dtype0*
shape:
r
StaticRegexReplaceStaticRegexReplacex*
pattern((\w)(\w))\w*
replace_global(*
rewrite	\3\2|\1
,
outIdentityStaticRegexReplace*
T0"ª