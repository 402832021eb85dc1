
,
xPlaceholder*
dtype0*
shape:
!
FFT3DFFT3Dx*
Tcomplex0

outIdentityFFT3D*
T0"ª