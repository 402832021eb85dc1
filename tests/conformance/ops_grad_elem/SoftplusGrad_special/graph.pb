
,
gPlaceholder*
dtype0*
shape:
,
fPlaceholder*
dtype0*
shape:
+
SoftplusGradSoftplusGradgf*
T0
&
outIdentitySoftplusGrad*
T0"ª