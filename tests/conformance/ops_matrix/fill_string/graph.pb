
,
iPlaceholder*
dtype0	*
shape:
,
vPlaceholder*
dtype0*
shape:
,
sPlaceholder*
dtype0	*
shape:
,
dPlaceholder*
dtype0*
shape:
?
SparseFillEmptyRowsSparseFillEmptyRowsivsd*
T0
-
outIdentitySparseFillEmptyRows*
T0	
1
out_1IdentitySparseFillEmptyRows:1*
T0
1
out_2IdentitySparseFillEmptyRows:2*
T0

1
out_3IdentitySparseFillEmptyRows:3*
T0	"ª