
.
xPlaceholder*
dtype0*
shape:
2
outCheckNumericsx*
T0*
messagebad"ª