
,
xPlaceholder*
dtype0*
shape:
C
RandomShuffleRandomShufflex*
T0*
seed2*

seed
'
outIdentityRandomShuffle*
T0"ª