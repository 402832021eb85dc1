
,
xPlaceholder*
dtype0*
shape:
,
fPlaceholder*
dtype0*
shape:
x
Conv3DConv3Dxf*
T0*
data_formatNDHWC*
	dilations	
*
paddingSAME*
strides	

 
outIdentityConv3D*
T0"ª