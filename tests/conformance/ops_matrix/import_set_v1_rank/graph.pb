
2
xPlaceholder*
dtype0*
shape
:
2
dPlaceholder*
dtype0*
shape
:
#
outMatrixSetDiagxd*
T0"ª