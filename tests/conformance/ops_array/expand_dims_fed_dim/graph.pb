
4
in0Placeholder*
dtype0*
shape
:
.
in1Placeholder*
dtype0*
shape:
0
out
ExpandDimsin0in1*

Tdim0*
T0"ª