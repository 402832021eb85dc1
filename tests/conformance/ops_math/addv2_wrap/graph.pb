
1
i8/xPlaceholder*
dtype0*
shape:
1
i8/yPlaceholder*
dtype0*
shape:
$
i8/outAddV2i8/xi8/y*
T0"ª