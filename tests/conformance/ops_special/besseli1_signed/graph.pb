
2
f32/xPlaceholder*
dtype0*
shape:
#
f32/outBesselI1f32/x*
T0
2
f64/xPlaceholder*
dtype0*
shape:
#
f64/outBesselI1f64/x*
T0"ª