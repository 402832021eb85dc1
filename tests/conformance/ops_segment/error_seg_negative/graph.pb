
.
in0Placeholder*
dtype0*
shape:
.
in1Placeholder*
dtype0*
shape:
4
out
SegmentMaxin0in1*
Tindices0*
T0"ª