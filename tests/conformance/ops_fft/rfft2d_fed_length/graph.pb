
,
xPlaceholder*
dtype0*
shape:
,
nPlaceholder*
dtype0*
shape:
3
RFFT2DRFFT2Dxn*
Tcomplex0*
Treal0
 
outIdentityRFFT2D*
T0"ª