
2
xPlaceholder*
dtype0*
shape
:
3
outEnsureShapex*
T0*
shape
:"ª