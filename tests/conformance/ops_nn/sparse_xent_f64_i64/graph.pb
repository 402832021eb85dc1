
,
fPlaceholder*
dtype0*
shape:
,
lPlaceholder*
dtype0	*
shape:
h
#SparseSoftmaxCrossEntropyWithLogits#SparseSoftmaxCrossEntropyWithLogitsfl*
Tlabels0	*
T0
=
outIdentity#SparseSoftmaxCrossEntropyWithLogits*
T0
A
out_1Identity%SparseSoftmaxCrossEntropyWithLogits:1*
T0"ª