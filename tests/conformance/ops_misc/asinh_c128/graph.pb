
,
xPlaceholder*
dtype0*
shape:

AsinhAsinhx*
T0

outIdentityAsinh*
T0"ª