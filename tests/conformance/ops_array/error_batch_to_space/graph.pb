
.
in0Placeholder*
dtype0*
shape:
0
in1Placeholder*
dtype0*
shape:
.
in2Placeholder*
dtype0*
shape:
O
outBatchToSpaceNDin0in1in2*
Tblock_shape0*
T0*
Tcrops0"ª