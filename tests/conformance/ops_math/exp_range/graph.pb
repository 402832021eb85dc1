
2
f32/xPlaceholder*
dtype0*
shape:

f32/outExpf32/x*
T0
2
f16/xPlaceholder*
dtype0*
shape:

f16/outExpf16/x*
T0"ª