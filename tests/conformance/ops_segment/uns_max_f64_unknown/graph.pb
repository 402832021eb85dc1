
.
in0Placeholder*
dtype0*
shape:
.
in1Placeholder*
dtype0*
shape:
.
in2Placeholder*
dtype0*
shape:
U
outUnsortedSegmentMaxin0in1in2*
Tindices0*
Tnumsegments0*
T0"ª