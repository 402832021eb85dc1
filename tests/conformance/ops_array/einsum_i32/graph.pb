
4
in0Placeholder*
dtype0*
shape
:
4
in1Placeholder*
dtype0*
shape
:
B
outEinsumin0in1*
equation	ij,jk->ik*
T0*
N"ª