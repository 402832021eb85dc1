
:
f32/xPlaceholder*
dtype0*
shape:
6
f32/yPlaceholder*
dtype0*
shape
:
)
f32/outMaximumf32/xf32/y*
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
)
i32/outMaximumi32/xi32/y*
T0"ª