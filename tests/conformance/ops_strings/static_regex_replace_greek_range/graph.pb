
,
xPlaceholder*
dtype0*
shape:
i
StaticRegexReplaceStaticRegexReplacex*
pattern
[α-ω]+*
replace_global(*
rewritegr
,
outIdentityStaticRegexReplace*
T0"�