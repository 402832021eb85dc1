
.
in0Placeholder*
dtype0*
shape:
.
in1Placeholder*
dtype0*
shape:
G
out	MirrorPadin0in1*
	Tpaddings0*
T0*
mode	REFLECT"ª