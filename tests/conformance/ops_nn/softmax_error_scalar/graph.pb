
,
xPlaceholder*
dtype0*
shape:

SoftmaxSoftmaxx*
T0
!
outIdentitySoftmax*
T0"ª