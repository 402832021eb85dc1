
,
xPlaceholder*
dtype0*
shape:
Q
RandomShuffleRandomShufflex*
T0*
seed2ýÿÿÿÿÿÿÿÿ*
seed”´äôË
'
outIdentityRandomShuffle*
T0"ª