
,
xPlaceholder*
dtype0*
shape:

Relu6Relu6x*
T0

outIdentityRelu6*
T0"ª