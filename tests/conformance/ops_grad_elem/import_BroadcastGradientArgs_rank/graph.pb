
3
s0Placeholder*
dtype0*
shape
:
-
s1Placeholder*
dtype0*
shape:
-
outBroadcastGradientArgss0s1*
T0"ª