
6
f32/xPlaceholder*
dtype0*
shape
:
!
f32/outLgammaf32/x*
T0
6
f64/xPlaceholder*
dtype0*
shape
:
!
f64/outLgammaf64/x*
T0
6
f16/xPlaceholder*
dtype0*
shape
:
!
f16/outLgammaf16/x*
T0"ª