
,
xPlaceholder*
shape:*
dtype0
,
yPlaceholder*
shape:*
dtype0

totalAddV2xy*
T0"ª