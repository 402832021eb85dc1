
,
xPlaceholder*
dtype0*
shape:
x
	AvgPool3D	AvgPool3Dx*
T0*
data_formatNDHWC*
ksize	
*
paddingVALID*
strides	

#
outIdentity	AvgPool3D*
T0"ª