
,
xPlaceholder*
dtype0*
shape:
a
StaticRegexReplaceStaticRegexReplacex*
pattern$*
replace_global(*
rewrite!
,
outIdentityStaticRegexReplace*
T0"ª