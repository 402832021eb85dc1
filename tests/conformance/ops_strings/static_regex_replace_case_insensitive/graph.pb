
,
xPlaceholder*
dtype0*
shape:
p
StaticRegexReplaceStaticRegexReplacex*
pattern(?i)Ã©cole|hello*
replace_global(*
rewrite*
,
outIdentityStaticRegexReplace*
T0"ª