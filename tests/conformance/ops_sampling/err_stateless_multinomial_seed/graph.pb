
1
logitsPlaceholder*
dtype0*
shape:
,
nPlaceholder*
dtype0*
shape:
,
sPlaceholder*
dtype0	*
shape:
d
StatelessMultinomialStatelessMultinomiallogitsns*
Tseed0	*
T0*
output_dtype0	
.
outIdentityStatelessMultinomial*
T0	"ª