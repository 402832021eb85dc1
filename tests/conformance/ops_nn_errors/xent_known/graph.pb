
2
xPlaceholder*
dtype0*
shape
:
2
lPlaceholder*
dtype0*
shape
:
3
outSoftmaxCrossEntropyWithLogitsxl*
T0"ª