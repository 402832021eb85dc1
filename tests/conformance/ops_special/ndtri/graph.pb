
6
f32/xPlaceholder*
dtype0*
shape
:
 
f32/outNdtrif32/x*
T0
6
f64/xPlaceholder*
dtype0*
shape
:
 
f64/outNdtrif64/x*
T0"ª