
6
f32/aPlaceholder*
dtype0*
shape
:
2
f32/bPlaceholder*
dtype0*
shape:
)
f32/outIgammacf32/af32/b*
T0
6
f64/aPlaceholder*
dtype0*
shape
:
2
f64/bPlaceholder*
dtype0*
shape:
)
f64/outIgammacf64/af64/b*
T0"ª