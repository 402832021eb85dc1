
4
in0Placeholder*
dtype0*
shape
:
4
in1Placeholder*
dtype0*
shape
:
$
out
BitwiseAndin0in1*
T0"ª