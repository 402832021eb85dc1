
,
dPlaceholder*
dtype0*
shape:
$

MatrixDiag
MatrixDiagd*
T0
$
outIdentity
MatrixDiag*
T0"ª