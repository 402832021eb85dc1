
6
yPlaceholder*
dtype0*
shape:
7
dyPlaceholder*
dtype0*
shape:
*
SigmoidGradSigmoidGradydy*
T0
%
outIdentitySigmoidGrad*
T0"ª