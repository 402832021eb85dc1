
,
xPlaceholder*
dtype0*
shape:
,
fPlaceholder*
dtype0*
shape:
t
outConv3Dxf*
T0*
data_formatNDHWC*
	dilations
*
paddingSAME*
strides	
"ª