
,
xPlaceholder*
dtype0*
shape:
,
dPlaceholder*
dtype0*
shape:
-
MatrixSetDiagMatrixSetDiagxd*
T0
'
outIdentityMatrixSetDiag*
T0"ª