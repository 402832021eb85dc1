
,
xPlaceholder*
dtype0*
shape:
#
IFFT3DIFFT3Dx*
Tcomplex0
 
outIdentityIFFT3D*
T0"ª