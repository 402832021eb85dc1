
0
in0Placeholder*
dtype0*
shape:

outOnesLikein0*
T0"ª