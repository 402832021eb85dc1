
4
in0Placeholder*
dtype0*
shape
:
0
c1Const*
dtype0*
valueB:
G
outUniqueWithCountsV2in0c1*
Taxis0*
T0*
out_idx0"ª