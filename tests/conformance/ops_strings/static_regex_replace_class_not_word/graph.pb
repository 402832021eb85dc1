
,
xPlaceholder*
dtype0*
shape:
i
StaticRegexReplaceStaticRegexReplacex*
pattern	[^\W_\d]+*
replace_global(*
rewritew
,
outIdentityStaticRegexReplace*
T0"ª