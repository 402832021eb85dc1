
.
cPlaceholder*
dtype0
*
shape:
2
tPlaceholder*
dtype0*
shape
:
2
ePlaceholder*
dtype0*
shape
:

outSelectcte*
T0"ª