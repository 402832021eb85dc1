
.
in0Placeholder*
dtype0*
shape:
.
in1Placeholder*
dtype0*
shape:
.
outPadin0in1*
	Tpaddings0*
T0"ª