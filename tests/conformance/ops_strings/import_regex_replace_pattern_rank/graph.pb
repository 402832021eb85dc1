
,
xPlaceholder*
dtype0*
shape:
.
pPlaceholder*
dtype0*
shape:
,
rPlaceholder*
dtype0*
shape:
2
outRegexReplacexpr*
replace_global("ª