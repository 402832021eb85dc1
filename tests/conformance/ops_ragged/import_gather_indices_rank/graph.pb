
,
sPlaceholder*
dtype0	*
shape:
,
vPlaceholder*
dtype0*
shape:
2
iPlaceholder*
dtype0*
shape
:
‡
RaggedGatherRaggedGathersvi*
OUTPUT_RAGGED_RANK*
PARAMS_RAGGED_RANK*
Tindices0*
Tsplits0	*
Tvalues0
(
outIdentityRaggedGather:1*
T0"ª