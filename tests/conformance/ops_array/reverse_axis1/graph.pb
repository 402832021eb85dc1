
4
in0Placeholder*
dtype0*
shape
:
0
c1Const*
dtype0*
valueB:
.
out	ReverseV2in0c1*
T0*

Tidx0"ª