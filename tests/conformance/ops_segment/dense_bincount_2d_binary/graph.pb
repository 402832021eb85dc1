
.
in0Placeholder*
dtype0*
shape:
.
in1Placeholder*
dtype0*
shape:
.
in2Placeholder*
dtype0	*
shape:
M
outDenseBincountin0in1in2*

Tidx0*
T0	*
binary_output("ª