
6
f32/xPlaceholder*
dtype0*
shape
:
2
f32/yPlaceholder*
dtype0*
shape:
J
f32/outNotEqualf32/xf32/y*
T0*
incompatible_shape_error("ª