
.
xPlaceholder*
dtype0*
shape:

c
outStringFormatx*

T
2*
placeholder{}*
	summarizeÿÿÿÿÿÿÿÿÿ*
template{}"ª