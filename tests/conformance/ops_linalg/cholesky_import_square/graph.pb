
3
x0Placeholder*
dtype0*
shape
:
!
CholeskyCholeskyx0*
T0
"
outIdentityCholesky*
T0"ª