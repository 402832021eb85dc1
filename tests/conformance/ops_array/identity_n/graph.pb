
4
in0Placeholder*
dtype0*
shape
:
0
in1Placeholder*
dtype0*
shape:
0
in2Placeholder*
dtype0*
shape:
-
out	IdentityNin0in1in2*
T
2"ª