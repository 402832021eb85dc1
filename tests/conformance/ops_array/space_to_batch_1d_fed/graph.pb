
.
in0Placeholder*
dtype0*
shape:
0
in1Placeholder*
dtype0	*
shape:
4
in2Placeholder*
dtype0*
shape
:
R
outSpaceToBatchNDin0in1in2*
T0*
Tblock_shape0	*
	Tpaddings0"ª