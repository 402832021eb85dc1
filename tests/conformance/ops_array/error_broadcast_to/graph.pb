
.
in0Placeholder*
dtype0*
shape:
.
in1Placeholder*
dtype0*
shape:
1
outBroadcastToin0in1*
T0*

Tidx0"ª