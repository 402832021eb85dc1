
.
in0Placeholder*
dtype0*
shape:
.
in1Placeholder*
dtype0*
shape:
0
outDynamicStitchin0in1*
N*
T0"ª