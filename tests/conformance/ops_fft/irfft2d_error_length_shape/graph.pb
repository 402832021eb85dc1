
,
xPlaceholder*
dtype0*
shape:
,
nPlaceholder*
dtype0*
shape:
5
IRFFT2DIRFFT2Dxn*
Tcomplex0*
Treal0
!
outIdentityIRFFT2D*
T0"ª