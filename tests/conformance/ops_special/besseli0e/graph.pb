
6
f32/xPlaceholder*
dtype0*
shape
:
$
f32/out	BesselI0ef32/x*
T0
6
f64/xPlaceholder*
dtype0*
shape
:
$
f64/out	BesselI0ef64/x*
T0
6
f16/xPlaceholder*
dtype0*
shape
:
$
f16/out	BesselI0ef16/x*
T0"ª