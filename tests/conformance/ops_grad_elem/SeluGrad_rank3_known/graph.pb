
6
gPlaceholder*
dtype0*
shape:
6
fPlaceholder*
dtype0*
shape:
#
SeluGradSeluGradgf*
T0
"
outIdentitySeluGrad*
T0"ª