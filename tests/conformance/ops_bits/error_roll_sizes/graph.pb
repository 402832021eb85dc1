
4
in0Placeholder*
dtype0*
shape
:
0
in1Placeholder*
dtype0*
shape:
0
in2Placeholder*
dtype0*
shape:
>
outRollin0in1in2*
Taxis0*
Tshift0*
T0"ª