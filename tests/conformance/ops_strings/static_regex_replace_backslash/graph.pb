
,
xPlaceholder*
dtype0*
shape:
b
StaticRegexReplaceStaticRegexReplacex*
patterno*
replace_global(*
rewrite\\
,
outIdentityStaticRegexReplace*
T0"ª