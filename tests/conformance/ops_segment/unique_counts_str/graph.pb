
0
in0Placeholder*
dtype0*
shape:
4
outUniqueWithCountsin0*
T0*
out_idx0"ª