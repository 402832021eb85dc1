
,
cPlaceholder*
dtype0
*
shape:
,
tPlaceholder*
dtype0*
shape:
,
ePlaceholder*
dtype0*
shape:
!
outSelectV2cte*
T0"ª