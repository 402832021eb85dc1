
0
shapePlaceholder*
dtype0*
shape:
.
keyPlaceholder*
dtype0*
shape:
2
counterPlaceholder*
dtype0*
shape:
.
algPlaceholder*
dtype0*
shape:
-
loPlaceholder*
dtype0	*
shape:
-
hiPlaceholder*
dtype0	*
shape:
_
outStatelessRandomUniformIntV2shapekeycounteralglohi*
Tshape0*
dtype0	"ª