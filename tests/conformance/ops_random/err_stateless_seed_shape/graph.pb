
0
shapePlaceholder*
dtype0*
shape:
/
seedPlaceholder*
dtype0	*
shape:
L
outStatelessRandomNormalshapeseed*
Tseed0	*
T0*
dtype0"ª