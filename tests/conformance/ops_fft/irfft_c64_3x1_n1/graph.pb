
,
xPlaceholder*
dtype0*
shape:
>
IRFFT/fft_lengthConst*
dtype0*
valueB:
@
IRFFTIRFFTxIRFFT/fft_length*
Tcomplex0*
Treal0

outIdentityIRFFT*
T0"ª