
,
xPlaceholder*
dtype0*
shape:

IFFTIFFTx*
Tcomplex0

outIdentityIFFT*
T0"ª