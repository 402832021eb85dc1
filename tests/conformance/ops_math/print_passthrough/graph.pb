
.
xPlaceholder*
dtype0*
shape:
2
dPlaceholder*
dtype0*
shape
:
j
outPrintxdx*
T0*
U
2*
first_nÿÿÿÿÿÿÿÿÿ*
message	value: *
	summarize"ª