
4
pPlaceholderV2*
dtype0*
shape
:

outIdentityp*
T0"