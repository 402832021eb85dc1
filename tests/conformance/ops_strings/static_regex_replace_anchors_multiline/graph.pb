
,
xPlaceholder*
dtype0*
shape:
i
StaticRegexReplaceStaticRegexReplacex*
pattern	(?m)^line*
replace_global(*
rewriteL
,
outIdentityStaticRegexReplace*
T0"ª