
0
in0Placeholder*
dtype0*
shape:
0
c1Const*
dtype0*
valueB:
0
c2Const*
dtype0*
valueB:
/
outSlicein0c1c2*
Index0*
T0"ª