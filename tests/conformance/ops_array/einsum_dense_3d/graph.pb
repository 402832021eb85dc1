
8
in0Placeholder*
dtype0*
shape:
4
in1Placeholder*
dtype0*
shape
:
D
outEinsumin0in1*
equationabc,cd->abd*
T0*
N"ª