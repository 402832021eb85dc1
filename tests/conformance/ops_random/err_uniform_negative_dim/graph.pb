
0
shapePlaceholder*
dtype0*
shape:
J
outRandomUniformshape*
T0*
dtype0*
seed2*

seed"ª