
8
in0Placeholder*
dtype0*
shape:
8
in1Placeholder*
dtype0*
shape:
E
outEinsumin0in1*
equationbij,bjk->bik*
N*
T0"ª