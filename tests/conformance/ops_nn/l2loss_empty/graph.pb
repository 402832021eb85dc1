
,
xPlaceholder*
dtype0*
shape:

L2LossL2Lossx*
T0
 
outIdentityL2Loss*
T0"ª