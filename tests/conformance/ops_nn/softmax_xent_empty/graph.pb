
,
fPlaceholder*
dtype0*
shape:
,
lPlaceholder*
dtype0*
shape:
M
SoftmaxCrossEntropyWithLogitsSoftmaxCrossEntropyWithLogitsfl*
T0
7
outIdentitySoftmaxCrossEntropyWithLogits*
T0
;
out_1IdentitySoftmaxCrossEntropyWithLogits:1*
T0"ª