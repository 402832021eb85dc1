
,
sPlaceholder*
dtype0*
shape:
,
fPlaceholder*
dtype0*
shape:
,
dPlaceholder*
dtype0*
shape:
¨
Conv3DBackpropInputV2Conv3DBackpropInputV2sfd*
Tshape0*
T0*
data_formatNDHWC*
	dilations	
*
paddingVALID*
strides	

/
outIdentityConv3DBackpropInputV2*
T0"ª