
,
xPlaceholder*
dtype0*
shape:
g
StaticRegexReplaceStaticRegexReplacex*
pattern	[à-ü]*
replace_global(*
rewrite?
,
outIdentityStaticRegexReplace*
T0"�