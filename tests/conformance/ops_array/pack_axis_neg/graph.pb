
4
in0Placeholder*
dtype0*
shape
:
4
in1Placeholder*
dtype0*
shape
:
4
in2Placeholder*
dtype0*
shape
:
A
outPackin0in1in2*
axisÿÿÿÿÿÿÿÿÿ*
T0*
N"ª