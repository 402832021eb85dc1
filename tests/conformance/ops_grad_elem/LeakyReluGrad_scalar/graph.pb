
,
gPlaceholder*
dtype0*
shape:
,
fPlaceholder*
dtype0*
shape:
=
LeakyReluGradLeakyReluGradgf*
T0*
alpha%ÍÌL>
'
outIdentityLeakyReluGrad*
T0"ª