
0
in0Placeholder*
dtype0*
shape:
0
in1Placeholder*
dtype0*
shape:
@
outEinsumin0in1*
equation	i,j->ij*
T0*
N"ª