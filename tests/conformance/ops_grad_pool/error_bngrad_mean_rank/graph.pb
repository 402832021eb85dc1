
-
dyPlaceholder*
dtype0*
shape:
,
xPlaceholder*
dtype0*
shape:
0
scalePlaceholder*
dtype0*
shape:
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
epsilon%oƒ:*
is_training(
.
outIdentityFusedBatchNormGradV3*
T0
2
out_1IdentityFusedBatchNormGradV3:1*
T0
2
out_2IdentityFusedBatchNormGradV3:2*
T0
2
out_3IdentityFusedBatchNormGradV3:3*
T0
2
out_4IdentityFusedBatchNormGradV3:4*
T0"ª