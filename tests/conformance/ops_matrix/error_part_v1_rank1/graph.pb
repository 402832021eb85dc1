
,
aPlaceholder*
dtype0*
shape:
,
MatrixDiagPartMatrixDiagParta*
T0
(
outIdentityMatrixDiagPart*
T0"ª