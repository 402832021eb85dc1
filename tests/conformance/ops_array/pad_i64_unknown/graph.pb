
.
in0Placeholder*
dtype0*
shape:
4
in1Placeholder*
dtype0	*
shape
:
.
outPadin0in1*
T0*
	Tpaddings0	"ª