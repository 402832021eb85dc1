
.
in0Placeholder*
dtype0*
shape:
.
in1Placeholder*
dtype0*
shape:
.
in2Placeholder*
dtype0*
shape:
.
in3Placeholder*
dtype0*
shape:
Y
outSparseToDensein0in1in2in3*
Tindices0*
T0*
validate_indices("ª