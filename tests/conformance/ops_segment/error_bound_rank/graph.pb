
.
in0Placeholder*
dtype0*
shape:
.
in1Placeholder*
dtype0*
shape:
4
out
UpperBoundin0in1*
T0*
out_type0"ª