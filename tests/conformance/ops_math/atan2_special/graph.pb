
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
'
f32/outAtan2f32/yf32/x*
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
'
f64/outAtan2f64/yf64/x*
T0"ª