
.
in0Placeholder*
dtype0*
shape:
)
outSizein0*
out_type0	*
T0"ª