
2
gPlaceholder*
dtype0*
shape
:
2
fPlaceholder*
dtype0*
shape
:
3
outLeakyReluGradgf*
T0*
alpha%ÍÌL>"ª