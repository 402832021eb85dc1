
,
xPlaceholder*
dtype0*
shape:
v
outAvgPoolx*
T0*
data_formatNHWC*
ksize
þÿÿÿÿÿÿÿÿ*
paddingVALID*
strides
"ª