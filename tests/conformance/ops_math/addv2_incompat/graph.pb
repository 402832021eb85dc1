
0
f32/xPlaceholder*
dtype0*
shape:
0
f32/yPlaceholder*
dtype0*
shape:
'
f32/outAddV2f32/xf32/y*
T0"ª