
4
in0Placeholder*
dtype0*
shape
:
9
outEinsumin0*
equationii->i*
T0*
N"ª