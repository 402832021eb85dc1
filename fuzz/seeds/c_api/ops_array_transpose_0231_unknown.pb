
.
in0Placeholder*
dtype0*
shape:
0
in1Placeholder*
dtype0	*
shape:
0
out	Transposein0in1*
T0*
Tperm0	"ª