
.
in0Placeholder*
dtype0*
shape:
.
in1Placeholder*
dtype0	*
shape:
H
outUniqueWithCountsV2in0in1*
Taxis0	*
T0*
out_idx0"ª