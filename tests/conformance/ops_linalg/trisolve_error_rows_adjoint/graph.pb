
,
aPlaceholder*
dtype0*
shape:
,
bPlaceholder*
dtype0*
shape:
Y
MatrixTriangularSolveMatrixTriangularSolveab*
T0*
adjoint(*
lower(
/
outIdentityMatrixTriangularSolve*
T0"ª