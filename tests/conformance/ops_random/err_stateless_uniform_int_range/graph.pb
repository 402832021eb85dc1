
0
shapePlaceholder*
dtype0*
shape:
/
seedPlaceholder*
dtype0*
shape:
-
loPlaceholder*
dtype0*
shape:
-
hiPlaceholder*
dtype0*
shape:
X
outStatelessRandomUniformIntshapeseedlohi*
Tseed0*
T0*
dtype0"ª