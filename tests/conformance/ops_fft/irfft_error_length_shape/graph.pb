
,
xPlaceholder*
dtype0*
shape:
,
nPlaceholder*
dtype0*
shape:
1
IRFFTIRFFTxn*
Tcomplex0*
Treal0

outIdentityIRFFT*
T0"ª