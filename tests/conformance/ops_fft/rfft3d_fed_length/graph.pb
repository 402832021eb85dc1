
,
xPlaceholder*
dtype0*
shape:
,
nPlaceholder*
dtype0*
shape:
3
RFFT3DRFFT3Dxn*
Tcomplex0*
Treal0
 
outIdentityRFFT3D*
T0"ª