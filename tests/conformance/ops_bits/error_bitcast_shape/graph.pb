
4
in0Placeholder*
dtype0*
shape
:
(
outBitcastin0*
T0*

type0"ª