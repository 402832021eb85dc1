
,
xPlaceholder*
dtype0*
shape:
#
IFFT2DIFFT2Dx*
Tcomplex0
 
outIdentityIFFT2D*
T0"ª