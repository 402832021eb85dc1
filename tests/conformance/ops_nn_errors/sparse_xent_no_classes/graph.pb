
,
xPlaceholder*
dtype0*
shape:
,
lPlaceholder*
dtype0*
shape:
H
out#SparseSoftmaxCrossEntropyWithLogitsxl*
Tlabels0*
T0"ª