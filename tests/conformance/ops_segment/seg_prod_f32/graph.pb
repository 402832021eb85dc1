
4
in0Placeholder*
dtype0*
shape
:
0
in1Placeholder*
dtype0*
shape:
5
outSegmentProdin0in1*
Tindices0*
T0"ª