
,
xPlaceholder*
dtype0*
shape:

outSoftmaxx*
T0"ª