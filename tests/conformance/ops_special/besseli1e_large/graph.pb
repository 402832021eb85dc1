
2
f32/xPlaceholder*
dtype0*
shape:
$
f32/out	BesselI1ef32/x*
T0"ª