
,
xPlaceholder*
dtype0*
shape:
i
StaticRegexReplaceStaticRegexReplacex*
patterna{2,3}*
replace_global(*
rewrite<\0>
,
outIdentityStaticRegexReplace*
T0"ª