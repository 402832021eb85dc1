
0
shapePlaceholder*
dtype0*
shape:
,
gPlaceholder*
dtype0*
shape:
€
AvgPoolGradAvgPoolGradshapeg*
T0*
data_formatNHWC*
ksize
*
paddingVALID*
strides

%
outIdentityAvgPoolGrad*
T0"ª