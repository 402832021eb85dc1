
,
xPlaceholder*
dtype0*
shape:
,
bPlaceholder*
dtype0*
shape:
4
outBiasAddxb*
T0*
data_formatNHWC"ª