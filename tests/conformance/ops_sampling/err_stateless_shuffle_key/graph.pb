
,
xPlaceholder*
dtype0*
shape:
,
kPlaceholder*
dtype0*
shape:
,
cPlaceholder*
dtype0*
shape:
,
aPlaceholder*
dtype0*
shape:
9
StatelessShuffleStatelessShufflexkca*
T0
*
outIdentityStatelessShuffle*
T0"ª