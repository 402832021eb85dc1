
0
in0Placeholder*
dtype0	*
shape:F
0
in1Placeholder*
dtype0	*
shape:F
#
out	LeftShiftin0in1*
T0	"ª