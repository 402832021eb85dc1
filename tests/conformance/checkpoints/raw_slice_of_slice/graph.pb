
0
namesPlaceholder*
dtype0*
shape:
0
specsPlaceholder*
dtype0*
shape:
1
prefixPlaceholder*
dtype0*
shape:
=
	RestoreV2	RestoreV2prefixnamesspecs*
dtypes
2
#
outIdentity	RestoreV2*
T0"ª