
.
aPlaceholder*
dtype0*
shape:
.
bPlaceholder*
dtype0*
shape:
#
outAddNab*
N*
T0"ª