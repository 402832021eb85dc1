
.
in0Placeholder*
dtype0*
shape:
.
in1Placeholder*
dtype0*
shape:
/
outReshapein0in1*
Tshape0*
T0"ª