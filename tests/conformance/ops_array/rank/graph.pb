
.
in0Placeholder*
dtype0*
shape:

outRankin0*
T0"ª