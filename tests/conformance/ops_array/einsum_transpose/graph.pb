
4
in0Placeholder*
dtype0*
shape
:
:
outEinsumin0*
equationij->ji*
T0*
N"ª