
.
in0Placeholder*
dtype0*
shape:
.
in1Placeholder*
dtype0*
shape:
0
outFillin0in1*
T0*

index_type0"ª