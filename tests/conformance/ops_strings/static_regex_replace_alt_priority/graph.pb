
,
xPlaceholder*
dtype0*
shape:
f
StaticRegexReplaceStaticRegexReplacex*
patternab|abc*
replace_global(*
rewriteX
,
outIdentityStaticRegexReplace*
T0"ª