
,
xPlaceholder*
dtype0*
shape:
c
StaticRegexReplaceStaticRegexReplacex*
pattern\d+*
replace_global(*
rewrite#
,
outIdentityStaticRegexReplace*
T0"ª