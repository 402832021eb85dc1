
2
f32/xPlaceholder*
dtype0*
shape:
2
f32/yPlaceholder*
dtype0*
shape:
3
f32/outSquaredDifferencef32/xf32/y*
T0
2
f64/xPlaceholder*
dtype0*
shape:
2
f64/yPlaceholder*
dtype0*
shape:
3
f64/outSquaredDifferencef64/xf64/y*
T0
2
f16/xPlaceholder*
dtype0*
shape:
2
f16/yPlaceholder*
dtype0*
shape:
3
f16/outSquaredDifferencef16/xf16/y*
T0"ª