
.
in0Placeholder*
dtype0*
shape:
&
outInvertPermutationin0*
T0"ª