
.
xPlaceholder*
dtype0*
shape:
.
yPlaceholder*
dtype0
*
shape:
g
outStringFormatxy*
T
2
*
placeholder{}*
	summarize*
templatea {} b {} c"ª