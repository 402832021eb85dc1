
6
gPlaceholder*
dtype0*
shape:
6
fPlaceholder*
dtype0*
shape:
!
EluGradEluGradgf*
T0
!
outIdentityEluGrad*
T0"ª