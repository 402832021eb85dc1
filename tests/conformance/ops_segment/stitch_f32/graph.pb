
0
in0Placeholder*
dtype0*
shape:
4
in1Placeholder*
dtype0*
shape
:
4
in2Placeholder*
dtype0*
shape
:
8
in3Placeholder*
dtype0*
shape:
:
outDynamicStitchin0in1in2in3*
N*
T0"ª