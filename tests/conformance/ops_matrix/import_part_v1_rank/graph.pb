
.
xPlaceholder*
dtype0*
shape:
!
outMatrixDiagPartx*
T0"ª