
.
xPlaceholder*
dtype0*
shape:
6
outCastx*

DstT0*

SrcT0*
Truncate("ª