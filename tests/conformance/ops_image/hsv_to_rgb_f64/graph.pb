
,
xPlaceholder*
dtype0*
shape:
 
HSVToRGBHSVToRGBx*
T0
"
outIdentityHSVToRGB*
T0"ª