
2
i32/xPlaceholder*
dtype0*
shape:
2
i32/yPlaceholder*
dtype0*
shape:
%
i32/outMuli32/xi32/y*
T0"ª