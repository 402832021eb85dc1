
,
xPlaceholder*
dtype0*
shape:
l
StaticRegexReplaceStaticRegexReplacex*
pattern	(?P<w>o+)*
replace_global(*
rewrite(\1)
,
outIdentityStaticRegexReplace*
T0"ª