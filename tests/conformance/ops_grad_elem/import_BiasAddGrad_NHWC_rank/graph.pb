
.
xPlaceholder*
dtype0*
shape:
5
outBiasAddGradx*
T0*
data_formatNHWC"ª