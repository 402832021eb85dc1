
.
xPlaceholder*
dtype0*
shape:

outFFT2Dx*
Tcomplex0"ª