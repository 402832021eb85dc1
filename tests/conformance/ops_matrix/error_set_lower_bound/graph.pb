
-
a0Placeholder*
dtype0*
shape:
-
a1Placeholder*
dtype0*
shape:
-
a2Placeholder*
dtype0*
shape:
N
MatrixSetDiagV3MatrixSetDiagV3a0a1a2*
T0*
align
RIGHT_LEFT
)
outIdentityMatrixSetDiagV3*
T0"ª