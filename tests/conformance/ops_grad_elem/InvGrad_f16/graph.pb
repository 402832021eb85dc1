
,
yPlaceholder*
dtype0*
shape:
-
dyPlaceholder*
dtype0*
shape:
"
InvGradInvGradydy*
T0
!
outIdentityInvGrad*
T0"ª