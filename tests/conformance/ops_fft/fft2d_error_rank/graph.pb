
,
xPlaceholder*
dtype0*
shape:
!
FFT2DFFT2Dx*
Tcomplex0

outIdentityFFT2D*
T0"ª