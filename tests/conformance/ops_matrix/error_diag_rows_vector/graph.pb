
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
dtype0*
shape:
-
a3Placeholder*
dtype0*
shape:
-
a4Placeholder*
dtype0*
shape:
P
MatrixDiagV3MatrixDiagV3a0a1a2a3a4*
T0*
align
RIGHT_LEFT
&
outIdentityMatrixDiagV3*
T0"ª