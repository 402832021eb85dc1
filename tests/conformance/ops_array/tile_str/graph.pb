
0
in0Placeholder*
dtype0*
shape:
0
c1Const*
dtype0*
valueB:
/
outTilein0c1*
T0*

Tmultiples0"ª