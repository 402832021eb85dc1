
0
in0Placeholder*
dtype0	*
shape:
*
outUniquein0*
T0	*
out_idx0	"ª