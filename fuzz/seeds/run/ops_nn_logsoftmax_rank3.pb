
,
xPlaceholder*
dtype0*
shape:
$

LogSoftmax
LogSoftmaxx*
T0
$
outIdentity
LogSoftmax*
T0"ª