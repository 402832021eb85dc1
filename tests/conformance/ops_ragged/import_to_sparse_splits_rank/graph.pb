
2
sPlaceholder*
dtype0	*
shape
:
,
vPlaceholder*
dtype0*
shape:
]
RaggedTensorToSparseRaggedTensorToSparsesv*
RAGGED_RANK*
Tsplits0	*
T0
.
outIdentityRaggedTensorToSparse*
T0	"ª