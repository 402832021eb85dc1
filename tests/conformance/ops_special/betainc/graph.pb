
6
f32/aPlaceholder*
dtype0*
shape
:
6
f32/bPlaceholder*
dtype0*
shape
:
6
f32/xPlaceholder*
dtype0*
shape
:
0
f32/outBetaincf32/af32/bf32/x*
T0
6
f64/aPlaceholder*
dtype0*
shape
:
6
f64/bPlaceholder*
dtype0*
shape
:
6
f64/xPlaceholder*
dtype0*
shape
:
0
f64/outBetaincf64/af64/bf64/x*
T0"ª