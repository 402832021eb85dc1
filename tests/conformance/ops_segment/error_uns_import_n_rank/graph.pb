
0
in0Placeholder*
dtype0*
shape:
0
in1Placeholder*
dtype0*
shape:
0
in2Placeholder*
dtype0*
shape:
U
outUnsortedSegmentMaxin0in1in2*
Tindices0*
Tnumsegments0*
T0"ª