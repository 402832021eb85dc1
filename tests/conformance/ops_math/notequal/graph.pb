
2
str/xPlaceholder*
dtype0*
shape:
2
str/yPlaceholder*
dtype0*
shape:
J
str/outNotEqualstr/xstr/y*
T0*
incompatible_shape_error("ª