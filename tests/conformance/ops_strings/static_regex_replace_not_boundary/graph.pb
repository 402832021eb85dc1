
,
xPlaceholder*
dtype0*
shape:
e
StaticRegexReplaceStaticRegexReplacex*
pattern\Bo\B*
replace_global(*
rewrite0
,
outIdentityStaticRegexReplace*
T0"ª