
6
f32/xPlaceholder*
dtype0*
shape
:
6
f32/yPlaceholder*
dtype0*
shape
:
-
f32/outTruncateDivf32/xf32/y*
T0
6
f64/xPlaceholder*
dtype0*
shape
:
6
f64/yPlaceholder*
dtype0*
shape
:
-
f64/outTruncateDivf64/xf64/y*
T0"ª