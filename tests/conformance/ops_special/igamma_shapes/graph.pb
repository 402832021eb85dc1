
,
aPlaceholder*
dtype0*
shape:
,
xPlaceholder*
dtype0*
shape:

outIgammaax*
T0"ª