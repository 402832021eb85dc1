
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
ê
FusedBatchNormGradV2FusedBatchNormGradV2dyxscaler1r2*
T0*
U0*
data_formatNHWC*
epsilon%oÉ:*
is_training(
.
outIdentityFusedBatchNormGradV2*
T0
2
out_1IdentityFusedBatchNormGradV2:1*
T0
2
out_2IdentityFusedBatchNormGradV2:2*
T0
2
out_3IdentityFusedBatchNormGradV2:3*
T0
2
out_4IdentityFusedBatchNormGradV2:4*
T0"™