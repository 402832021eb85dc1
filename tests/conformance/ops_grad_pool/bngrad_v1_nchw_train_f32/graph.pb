
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
ƒ
FusedBatchNormGradFusedBatchNormGraddyxscaler1r2*
T0*
data_formatNCHW*
epsilon%oƒ:*
is_training(
,
outIdentityFusedBatchNormGrad*
T0
0
out_1IdentityFusedBatchNormGrad:1*
T0
0
out_2IdentityFusedBatchNormGrad:2*
T0
0
out_3IdentityFusedBatchNormGrad:3*
T0
0
out_4IdentityFusedBatchNormGrad:4*
T0"ª