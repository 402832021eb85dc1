
.
in0Placeholder*
dtype0*
shape:
.
in1Placeholder*
dtype0*
shape:
5
outSegmentMeanin0in1*
Tindices0*
T0"ª