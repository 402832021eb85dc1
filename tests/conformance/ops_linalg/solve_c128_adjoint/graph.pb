
,
aPlaceholder*
dtype0*
shape:
,
bPlaceholder*
dtype0*
shape:
8
MatrixSolveMatrixSolveab*
T0*
adjoint(
%
outIdentityMatrixSolve*
T0"ª