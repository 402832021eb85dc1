
4
in0Placeholder*
dtype0*
shape
:

outInvertin0*
T0"ª