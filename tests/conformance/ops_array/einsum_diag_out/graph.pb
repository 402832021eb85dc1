
0
in0Placeholder*
dtype0*
shape:
9
outEinsumin0*
equationi->ii*
N*
T0"ª