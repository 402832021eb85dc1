
2
xPlaceholder*
dtype0*
shape
:
.
dPlaceholder*
dtype0*
shape:
#
outMatrixSetDiagxd*
T0"ª