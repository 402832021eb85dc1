
,
aPlaceholder*
dtype0*
shape:
A
SelfAdjointEigV2SelfAdjointEigV2a*
T0*
	compute_v(
*
outIdentitySelfAdjointEigV2*
T0
.
out_1IdentitySelfAdjointEigV2:1*
T0"ª