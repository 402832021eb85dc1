
,
xPlaceholder*
dtype0*
shape:
r
out	MaxPool3Dx*
T0*
data_formatNDHWC*
ksize	
*
paddingSAME*
strides

"ª