
,
aPlaceholder*
dtype0*
shape:
9
MatrixInverseMatrixInversea*
T0*
adjoint(
'
outIdentityMatrixInverse*
T0"ª