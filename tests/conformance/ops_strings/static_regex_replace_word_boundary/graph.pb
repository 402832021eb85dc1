
,
xPlaceholder*
dtype0*
shape:
f
StaticRegexReplaceStaticRegexReplacex*
pattern\bb\w**
replace_global(*
rewriteB
,
outIdentityStaticRegexReplace*
T0"ª