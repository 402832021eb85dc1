
,
xPlaceholder*
dtype0*
shape:

out
LogSoftmaxx*
T0"ª