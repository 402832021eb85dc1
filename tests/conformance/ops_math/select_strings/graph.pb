
.
cPlaceholder*
dtype0
*
shape:
.
tPlaceholder*
dtype0*
shape:
.
ePlaceholder*
dtype0*
shape:

outSelectcte*
T0"ª