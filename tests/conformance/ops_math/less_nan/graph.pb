
6
f32/xPlaceholder*
dtype0*
shape
:
2
f32/yPlaceholder*
dtype0*
shape:
&
f32/outLessf32/xf32/y*
T0
6
f64/xPlaceholder*
dtype0*
shape
:
2
f64/yPlaceholder*
dtype0*
shape:
&
f64/outLessf64/xf64/y*
T0"ª