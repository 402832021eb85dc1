
-
a0Placeholder*
dtype0*
shape:
-
a1Placeholder*
dtype0*
shape:
-
a2Placeholder*
dtype0*
shape:
P
MatrixDiagPartV3MatrixDiagPartV3a0a1a2*
T0*
align
RIGHT_LEFT
*
outIdentityMatrixDiagPartV3*
T0"ª