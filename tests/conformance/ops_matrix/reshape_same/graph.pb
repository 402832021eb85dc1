
,
iPlaceholder*
dtype0	*
shape:
,
sPlaceholder*
dtype0	*
shape:
,
nPlaceholder*
dtype0	*
shape:
'
SparseReshapeSparseReshapeisn
'
outIdentitySparseReshape*
T0	
+
out_1IdentitySparseReshape:1*
T0	"ª