
4
in0Placeholder*
dtype0*
shape
:
0
in1Placeholder*
dtype0*
shape:
0
in2Placeholder*
dtype0*
shape:
e
outSparseSegmentSumin0in1in2*

Tidx0*
Tsegmentids0*
T0*
sparse_gradient("ª