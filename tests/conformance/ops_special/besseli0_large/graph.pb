
2
f64/xPlaceholder*
dtype0*
shape:
#
f64/outBesselI0f64/x*
T0"ª