
2
f64/aPlaceholder*
dtype0*
shape:
2
f64/bPlaceholder*
dtype0*
shape:
2
f64/xPlaceholder*
dtype0*
shape:
0
f64/outBetaincf64/af64/bf64/x*
T0"ª