
,
xPlaceholder*
dtype0*
shape:
l
outAvgPoolx*
T0*
data_formatNHWC*
ksize
*
paddingFULL*
strides
"ª