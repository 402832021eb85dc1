
.
in0Placeholder*
dtype0*
shape:
.
in1Placeholder*
dtype0*
shape:
.
in2Placeholder*
dtype0*
shape:
.
in3Placeholder*
dtype0*
shape:
I
outOneHotin0in1in2in3*
axisÿÿÿÿÿÿÿÿÿ*
T0*
TI0"ª