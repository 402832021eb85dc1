
,
pPlaceholder*
dtype0*
shape:
,
tPlaceholder*
dtype0*
shape:
,
kPlaceholder*
dtype0*
shape:
!
outInTopKV2ptk*
T0"ª