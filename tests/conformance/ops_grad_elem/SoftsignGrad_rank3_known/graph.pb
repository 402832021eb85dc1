
6
gPlaceholder*
dtype0*
shape:
6
fPlaceholder*
dtype0*
shape:
+
SoftsignGradSoftsignGradgf*
T0
&
outIdentitySoftsignGrad*
T0"ª