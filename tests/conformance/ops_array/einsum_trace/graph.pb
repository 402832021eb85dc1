
4
in0Placeholder*
dtype0*
shape
:
8
outEinsumin0*
equationii->*
N*
T0"ª