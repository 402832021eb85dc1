
.
in0Placeholder*
dtype0*
shape:
.
in1Placeholder*
dtype0*
shape:
.
in2Placeholder*
dtype0*
shape:
_
outTensorScatterUpdatein0in1in2*
Tindices0*
T0*
bad_indices_policyFOO"ª