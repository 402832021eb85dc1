
2
f32/aPlaceholder*
dtype0*
shape:
2
f32/bPlaceholder*
dtype0*
shape:
+
f32/out	Polygammaf32/af32/b*
T0
2
f64/aPlaceholder*
dtype0*
shape:
2
f64/bPlaceholder*
dtype0*
shape:
+
f64/out	Polygammaf64/af64/b*
T0"ª