
,
xPlaceholder*
dtype0*
shape:

ReluRelux*
T0

outIdentityRelu*
T0"ª