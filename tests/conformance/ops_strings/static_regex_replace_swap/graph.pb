
,
xPlaceholder*
dtype0*
shape:
r
StaticRegexReplaceStaticRegexReplacex*
pattern(\w+)@(\w+)*
replace_global(*
rewrite
\2 at \1
,
outIdentityStaticRegexReplace*
T0"ª