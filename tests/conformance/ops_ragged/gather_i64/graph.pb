
-
s0Placeholder*
dtype0	*
shape:
,
vPlaceholder*
dtype0	*
shape:
,
iPlaceholder*
dtype0*
shape:
ˆ
RaggedGatherRaggedGathers0vi*
OUTPUT_RAGGED_RANK*
PARAMS_RAGGED_RANK*
Tindices0*
Tsplits0	*
Tvalues0	
&
outIdentityRaggedGather*
T0	
*
out_1IdentityRaggedGather:1*
T0	"ª