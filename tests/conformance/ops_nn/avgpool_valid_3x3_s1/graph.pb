
,
xPlaceholder*
dtype0*
shape:
q
AvgPoolAvgPoolx*
T0*
data_formatNHWC*
ksize
*
paddingVALID*
strides

!
outIdentityAvgPool*
T0"ª