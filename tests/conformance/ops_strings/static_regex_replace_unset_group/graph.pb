
,
xPlaceholder*
dtype0*
shape:
h
StaticRegexReplaceStaticRegexReplacex*
pattern(z)|o*
replace_global(*
rewrite[\1]
,
outIdentityStaticRegexReplace*
T0"ª