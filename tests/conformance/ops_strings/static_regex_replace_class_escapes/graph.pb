
,
xPlaceholder*
dtype0*
shape:
g
StaticRegexReplaceStaticRegexReplacex*
pattern	[\d\s]+*
replace_global(*
rewrite~
,
outIdentityStaticRegexReplace*
T0"ª