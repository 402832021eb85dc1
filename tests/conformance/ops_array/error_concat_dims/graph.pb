
.
in0Placeholder*
dtype0*
shape:
.
in1Placeholder*
dtype0*
shape:
.
in2Placeholder*
dtype0*
shape:
<
outConcatV2in0in1in2*
N*
T0*

Tidx0"ª