
0
shapePlaceholder*
dtype0*
shape:
.
keyPlaceholder*
dtype0*
shape:
2
counterPlaceholder*
dtype0*
shape:
.
algPlaceholder*
dtype0*
shape:
T
outStatelessRandomUniformV2shapekeycounteralg*
Tshape0*
dtype0"ª