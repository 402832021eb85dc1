
,
xPlaceholder*
dtype0*
shape:
,
nPlaceholder*
dtype0*
shape:
5
IRFFT3DIRFFT3Dxn*
Tcomplex0*
Treal0
!
outIdentityIRFFT3D*
T0"ª