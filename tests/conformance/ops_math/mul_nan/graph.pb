
2
f32/xPlaceholder*
dtype0*
shape:
2
f32/yPlaceholder*
dtype0*
shape:
%
f32/outMulf32/xf32/y*
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
f64/outMulf64/xf64/y*
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
f16/outMulf16/xf16/y*
T0"ª