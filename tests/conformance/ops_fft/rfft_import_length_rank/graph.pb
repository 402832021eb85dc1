
.
xPlaceholder*
dtype0*
shape:
@
out/fft_lengthConst*
dtype0*
valueB:
;
outRFFTxout/fft_length*
Tcomplex0*
Treal0"ª