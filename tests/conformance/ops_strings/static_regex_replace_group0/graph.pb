
,
xPlaceholder*
dtype0*
shape:
j
StaticRegexReplaceStaticRegexReplacex*
pattern	[aeiou]*
replace_global(*
rewrite<\0>
,
outIdentityStaticRegexReplace*
T0"ª