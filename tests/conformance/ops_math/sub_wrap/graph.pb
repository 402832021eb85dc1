
1
u8/xPlaceholder*
dtype0*
shape:
1
u8/yPlaceholder*
dtype0*
shape:
"
u8/outSubu8/xu8/y*
T0"ª