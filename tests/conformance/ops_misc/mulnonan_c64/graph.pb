
,
xPlaceholder*
dtype0*
shape:
,
yPlaceholder*
dtype0*
shape:
#
MulNoNanMulNoNanxy*
T0
"
outIdentityMulNoNan*
T0"ª