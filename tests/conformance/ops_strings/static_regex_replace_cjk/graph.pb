
,
xPlaceholder*
dtype0*
shape:
j
StaticRegexReplaceStaticRegexReplacex*
pattern	[日本]+*
replace_global(*
rewriteJP
,
outIdentityStaticRegexReplace*
T0"�