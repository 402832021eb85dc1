
0
shapePlaceholder*
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
T
outRandomUniformIntshapelohi*

Tout0*
T0*
seed2*

seed"ª