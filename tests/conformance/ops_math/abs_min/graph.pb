
1
i8/xPlaceholder*
dtype0*
shape:

i8/outAbsi8/x*
T0"ª