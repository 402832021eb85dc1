
<
in0Placeholder*
dtype0*
shape:
<
in1Placeholder*
dtype0*
shape:
H
outEinsumin0in1*
equationbhqd,bhkd->bhqk*
T0*
N"ª