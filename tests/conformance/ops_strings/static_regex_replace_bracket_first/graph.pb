
,
xPlaceholder*
dtype0*
shape:
i
StaticRegexReplaceStaticRegexReplacex*
pattern	[]a]|[o-]*
replace_global(*
rewrite=
,
outIdentityStaticRegexReplace*
T0"ª