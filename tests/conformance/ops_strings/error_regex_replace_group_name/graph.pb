
,
xPlaceholder*
dtype0*
shape:
,
pPlaceholder*
dtype0*
shape:
,
rPlaceholder*
dtype0*
shape:
;
RegexReplaceRegexReplacexpr*
replace_global(
&
outIdentityRegexReplace*
T0"ª