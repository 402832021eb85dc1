
,
xPlaceholder*
dtype0*
shape:
i
StaticRegexReplaceStaticRegexReplacex*
pattern	\Q.bar@\E*
replace_global(*
rewrite!
,
outIdentityStaticRegexReplace*
T0"ª