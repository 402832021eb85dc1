
,
xPlaceholder*
dtype0*
shape:
,
nPlaceholder*
dtype0*
shape:
/
RFFTRFFTxn*
Tcomplex0*
Treal0

outIdentityRFFT*
T0"ª