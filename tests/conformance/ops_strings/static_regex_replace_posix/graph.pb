
,
xPlaceholder*
dtype0*
shape:
k
StaticRegexReplaceStaticRegexReplacex*
pattern[[:upper:]]*
replace_global(*
rewrite^
,
outIdentityStaticRegexReplace*
T0"ª