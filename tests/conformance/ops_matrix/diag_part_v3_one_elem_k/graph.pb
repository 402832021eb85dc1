
,
xPlaceholder*
dtype0*
shape:
,
pPlaceholder*
dtype0*
shape:
3
ConstConst*
dtype0*
valueB:
Q
MatrixDiagPartV3MatrixDiagPartV3xConstp*
T0*
align
RIGHT_LEFT
*
outIdentityMatrixDiagPartV3*
T0"ª