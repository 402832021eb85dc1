
<
in0Placeholder*
dtype0*
shape:
<
in1Placeholder*
dtype0*
shape:
H
outEinsumin0in1*
equationbhqk,bhkd->bqhd*
N*
T0"ª