
4
in0Placeholder*
dtype0*
shape
:
4
in1Placeholder*
dtype0*
shape
:
4
in2Placeholder*
dtype0*
shape
:
_
outTensorScatterMinin0in1in2*
Tindices0*
T0*
bad_indices_policyIGNORE"ª