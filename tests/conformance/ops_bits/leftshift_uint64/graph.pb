
0
in0Placeholder*
dtype0*
shape:C
0
in1Placeholder*
dtype0*
shape:C
#
out	LeftShiftin0in1*
T0"ª