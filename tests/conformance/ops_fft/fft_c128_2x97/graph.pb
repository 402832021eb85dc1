
,
xPlaceholder*
dtype0*
shape:

FFTFFTx*
Tcomplex0

outIdentityFFT*
T0"ª