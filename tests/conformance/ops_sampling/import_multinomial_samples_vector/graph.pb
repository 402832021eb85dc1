
1
logitsPlaceholder*
dtype0*
shape:
.
nPlaceholder*
dtype0*
shape:
S
outMultinomiallogitsn*
T0*
output_dtype0	*
seed2*

seed"ª