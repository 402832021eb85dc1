
,
xPlaceholder*
dtype0*
shape:
m
outAvgPoolx*
T0*
data_formatNHWC*
ksize
*
paddingVALID*
strides
"ª