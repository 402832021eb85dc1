
.
in0Placeholder*
dtype0*
shape:
J
outDepthToSpacein0*

block_size*
T0*
data_formatNHWC"ª