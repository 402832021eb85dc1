
.
in0Placeholder*
dtype0*
shape:
.
in1Placeholder*
dtype0*
shape:
/
out	ReverseV2in0in1*
T0*

Tidx0"ª