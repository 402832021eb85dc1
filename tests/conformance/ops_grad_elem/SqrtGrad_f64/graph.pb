
,
yPlaceholder*
dtype0*
shape:
-
dyPlaceholder*
dtype0*
shape:
$
SqrtGradSqrtGradydy*
T0
"
outIdentitySqrtGrad*
T0"ª