
.
in0Placeholder*
dtype0*
shape:
.
in1Placeholder*
dtype0*
shape:
K
outEinsumin0in1* 
equation...ij,...jk->...ik*
T0*
N"ª