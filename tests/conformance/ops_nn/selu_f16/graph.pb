
,
xPlaceholder*
dtype0*
shape:

SeluSelux*
T0

outIdentitySelu*
T0"ª