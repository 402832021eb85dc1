
,
xPlaceholder*
dtype0*
shape:
c
StaticRegexReplaceStaticRegexReplacex*
patterno*
replace_global(*
rewritex\y
,
outIdentityStaticRegexReplace*
T0"ª