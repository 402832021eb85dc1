
0
in0Placeholder*
dtype0*
shape:
0
in1Placeholder*
dtype0*
shape:
8
outParallelDynamicStitchin0in1*
N*
T0"ª