
,
xPlaceholder*
dtype0*
shape:
 
RGBToHSVRGBToHSVx*
T0
"
outIdentityRGBToHSV*
T0"ª