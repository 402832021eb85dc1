
,
aPlaceholder*
dtype0*
shape:
2
MatrixDeterminantMatrixDeterminanta*
T0
+
outIdentityMatrixDeterminant*
T0"ª