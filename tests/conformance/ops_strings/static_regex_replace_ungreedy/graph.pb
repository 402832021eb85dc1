
,
xPlaceholder*
dtype0*
shape:
f
StaticRegexReplaceStaticRegexReplacex*
pattern(?U)l+*
replace_global(*
rewriteL
,
outIdentityStaticRegexReplace*
T0"ª