
,
xPlaceholder*
dtype0*
shape:
j
StaticRegexReplaceStaticRegexReplacex*
pattern
(?i)[a-c]+*
replace_global(*
rewrite_
,
outIdentityStaticRegexReplace*
T0"ª