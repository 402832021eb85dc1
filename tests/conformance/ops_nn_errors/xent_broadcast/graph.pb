
,
xPlaceholder*
dtype0*
shape:
,
lPlaceholder*
dtype0*
shape:
3
outSoftmaxCrossEntropyWithLogitsxl*
T0"ª