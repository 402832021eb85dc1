
0
i32/xPlaceholder*
dtype0*
shape:
0
i32/yPlaceholder*
dtype0*
shape:
%
i32/outPowi32/xi32/y*
T0"ª