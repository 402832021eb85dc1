
0
shapePlaceholder*
dtype0	*
shape:
Q
outRandomStandardNormalshape*
T0	*
dtype0*
seed2*

seed"ª