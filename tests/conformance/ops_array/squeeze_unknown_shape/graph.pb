
.
in0Placeholder*
dtype0*
shape:
3
outSqueezein0*
T0*
squeeze_dims
"ª