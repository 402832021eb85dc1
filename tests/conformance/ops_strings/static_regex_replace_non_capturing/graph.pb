
,
xPlaceholder*
dtype0*
shape:
m
StaticRegexReplaceStaticRegexReplacex*
pattern
(?:ab)+(c)*
replace_global(*
rewrite[\1]
,
outIdentityStaticRegexReplace*
T0"ª