
,
vPlaceholder*
dtype0*
shape:
,
bPlaceholder*
dtype0*
shape:
%
	BiasAddV1	BiasAddV1vb*
T0
#
outIdentity	BiasAddV1*
T0"ª