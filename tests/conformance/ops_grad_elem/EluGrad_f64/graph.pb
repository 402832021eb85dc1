
,
gPlaceholder*
dtype0*
shape:
,
fPlaceholder*
dtype0*
shape:
!
EluGradEluGradgf*
T0
!
outIdentityEluGrad*
T0"ª