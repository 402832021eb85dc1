
2
yPlaceholder*
dtype0*
shape
:
3
dyPlaceholder*
dtype0*
shape
:
$
SqrtGradSqrtGradydy*
T0
"
outIdentitySqrtGrad*
T0"ª