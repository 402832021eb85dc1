
,
xPlaceholder*
dtype0*
shape:
h
StaticRegexReplaceStaticRegexReplacex*
pattern
(?i:t)he*
replace_global(*
rewriteY
,
outIdentityStaticRegexReplace*
T0"ª