
,
gPlaceholder*
dtype0*
shape:
,
fPlaceholder*
dtype0*
shape:
#
SeluGradSeluGradgf*
T0
"
outIdentitySeluGrad*
T0"ª