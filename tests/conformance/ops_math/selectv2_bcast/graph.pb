
6
cPlaceholder*
dtype0
*
shape:
.
tPlaceholder*
dtype0*
shape:
2
ePlaceholder*
dtype0*
shape
:
!
outSelectV2cte*
T0"ª