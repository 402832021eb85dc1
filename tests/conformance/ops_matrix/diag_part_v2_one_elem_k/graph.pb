
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
:
MatrixDiagPartV2MatrixDiagPartV2xConstp*
T0
*
outIdentityMatrixDiagPartV2*
T0"ª