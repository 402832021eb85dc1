
.
xPlaceholder*
dtype0*
shape:

]
outStringFormatx*

T
2*
placeholder{}*
	summarize*
templatev={}!"ª