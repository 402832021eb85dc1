
:
f32/xPlaceholder*
dtype0*
shape:
6
f32/yPlaceholder*
dtype0*
shape
:
3
f32/outSquaredDifferencef32/xf32/y*
T0
:
i32/xPlaceholder*
dtype0*
shape:
6
i32/yPlaceholder*
dtype0*
shape
:
3
i32/outSquaredDifferencei32/xi32/y*
T0"ª