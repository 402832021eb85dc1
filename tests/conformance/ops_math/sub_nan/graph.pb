
2
f32/xPlaceholder*
dtype0*
shape:
2
f32/yPlaceholder*
dtype0*
shape:
%
f32/outSubf32/xf32/y*
T0
2
f64/xPlaceholder*
dtype0*
shape:
2
f64/yPlaceholder*
dtype0*
shape:
%
f64/outSubf64/xf64/y*
T0
2
f16/xPlaceholder*
dtype0*
shape:
2
f16/yPlaceholder*
dtype0*
shape:
%
f16/outSubf16/xf16/y*
T0"ª