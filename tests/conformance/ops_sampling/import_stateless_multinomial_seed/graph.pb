
3
logitsPlaceholder*
dtype0*
shape:
,
nPlaceholder*
dtype0*
shape:
1
seedPlaceholder*
dtype0	*
shape:
V
outStatelessMultinomiallogitsnseed*
Tseed0	*
T0*
output_dtype0	"ª