
2
str/xPlaceholder*
dtype0*
shape:
2
str/yPlaceholder*
dtype0*
shape:
%
str/outAddstr/xstr/y*
T0"ª