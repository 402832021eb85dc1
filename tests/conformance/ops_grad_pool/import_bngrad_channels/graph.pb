
-
dyPlaceholder*
dtype0*
shape:
:
xPlaceholder*
dtype0*
shape:
2
scalePlaceholder*
dtype0*
shape:
-
r1Placeholder*
dtype0*
shape:
-
r2Placeholder*
dtype0*
shape:
-
r3Placeholder*
dtype0*
shape:
”
FusedBatchNormGradV3FusedBatchNormGradV3dyxscaler1r2r3*
T0*
U0*
data_formatNHWC*
epsilon%ทั8*
is_training(
.
outIdentityFusedBatchNormGradV3*
T0"ช