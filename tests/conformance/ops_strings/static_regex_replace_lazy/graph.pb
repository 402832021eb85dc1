
,
xPlaceholder*
dtype0*
shape:
c
StaticRegexReplaceStaticRegexReplacex*
patterna+?*
replace_global(*
rewriteA
,
outIdentityStaticRegexReplace*
T0"ª