
8
in0Placeholder*
dtype0*
shape:
0
in1Placeholder*
dtype0	*
shape:
0
outTilein0in1*
T0*

Tmultiples0	"ª