
,
xPlaceholder*
dtype0*
shape:
j
StaticRegexReplaceStaticRegexReplacex*
pattern
(a|b)*?c*
replace_global(*
rewrite[]
,
outIdentityStaticRegexReplace*
T0"ª