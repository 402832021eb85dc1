
1
logitsPlaceholder*
dtype0*
shape:
,
nPlaceholder*
dtype0*
shape:
[
MultinomialMultinomiallogitsn*
T0*
output_dtype0*
seed2*

seed
%
outIdentityMultinomial*
T0"ª