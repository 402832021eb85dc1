
2
i32/xPlaceholder*
dtype0*
shape:

i32/outNegi32/x*
T0"ª