
-
s0Placeholder*
dtype0*
shape:
-
s1Placeholder*
dtype0*
shape:
?
BroadcastGradientArgsBroadcastGradientArgss0s1*
T0
/
outIdentityBroadcastGradientArgs*
T0
3
out_1IdentityBroadcastGradientArgs:1*
T0"ª