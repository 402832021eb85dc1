
,
xPlaceholder*
dtype0*
shape:
p
AvgPoolAvgPoolx*
T0*
data_formatNHWC*
ksize
*
paddingSAME*
strides

!
outIdentityAvgPool*
T0"ª