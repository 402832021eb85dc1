
0
in0Placeholder*
dtype0*
shape:
0
in1Placeholder*
dtype0*
shape:
3
outPackin0in1*

axis*
T0*
N"ª