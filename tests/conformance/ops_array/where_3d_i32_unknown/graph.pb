
.
in0Placeholder*
dtype0*
shape:

outWherein0*
T0"ª