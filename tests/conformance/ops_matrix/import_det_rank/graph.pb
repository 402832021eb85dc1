
.
aPlaceholder*
dtype0*
shape:
$
outMatrixDeterminanta*
T0"ª