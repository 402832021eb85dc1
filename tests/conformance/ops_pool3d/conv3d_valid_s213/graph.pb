
,
xPlaceholder*
dtype0*
shape:
,
fPlaceholder*
dtype0*
shape:
y
Conv3DConv3Dxf*
T0*
data_formatNDHWC*
	dilations	
*
paddingVALID*
strides	

 
outIdentityConv3D*
T0"ª