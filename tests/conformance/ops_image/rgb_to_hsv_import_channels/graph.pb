
2
xPlaceholder*
dtype0*
shape
:

outRGBToHSVx*
T0"ª