
,
aPlaceholder*
dtype0*
shape:
,
bPlaceholder*
dtype0*
shape:
,
xPlaceholder*
dtype0*
shape:
 
outBetaincabx*
T0"ª