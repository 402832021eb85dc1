
0
in0Placeholder*
dtype0*
shape:&
0
in1Placeholder*
dtype0*
shape:&
$
out
RightShiftin0in1*
T0"ª