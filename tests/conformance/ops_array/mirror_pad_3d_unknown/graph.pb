
.
in0Placeholder*
dtype0*
shape:
4
in1Placeholder*
dtype0	*
shape
:
G
out	MirrorPadin0in1*
T0*
	Tpaddings0	*
mode	REFLECT"ª