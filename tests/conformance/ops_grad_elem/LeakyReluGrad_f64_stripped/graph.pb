

gPlaceholder*
dtype0

fPlaceholder*
dtype0
-
LeakyReluGradLeakyReluGradgf*
T0
'
outIdentityLeakyReluGrad*
T0"ª