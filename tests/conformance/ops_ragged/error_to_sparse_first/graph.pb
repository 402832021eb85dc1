
-
s0Placeholder*
dtype0	*
shape:
,
vPlaceholder*
dtype0*
shape:
^
RaggedTensorToSparseRaggedTensorToSparses0v*
RAGGED_RANK*
Tsplits0	*
T0
.
outIdentityRaggedTensorToSparse*
T0	
2
out_1IdentityRaggedTensorToSparse:1*
T0
2
out_2IdentityRaggedTensorToSparse:2*
T0	"ª