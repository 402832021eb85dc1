
2
xPlaceholder*
dtype0*
shape
:
Z
outStringFormatx*

T
2*
placeholder{}*
	summarize*
template{}"ª