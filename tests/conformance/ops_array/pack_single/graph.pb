
0
in0Placeholder*
dtype0*
shape:
.
outPackin0*

axis*
N*
T0"ª