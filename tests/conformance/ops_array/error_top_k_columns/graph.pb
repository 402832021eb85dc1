
.
in0Placeholder*
dtype0*
shape:
.
in1Placeholder*
dtype0*
shape:
J
outTopKV2in0in1*
Tk0*
sorted(*

index_type0*
T0"ª