
,
gPlaceholder*
dtype0*
shape:
,
fPlaceholder*
dtype0*
shape:
+
SoftsignGradSoftsignGradgf*
T0
&
outIdentitySoftsignGrad*
T0"ª