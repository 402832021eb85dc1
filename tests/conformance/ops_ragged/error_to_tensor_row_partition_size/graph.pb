
0
shapePlaceholder*
dtype0	*
shape:
,
vPlaceholder*
dtype0*
shape:
-
dvPlaceholder*
dtype0*
shape:
-
p0Placeholder*
dtype0	*
shape:
-
p1Placeholder*
dtype0	*
shape:
»
RaggedTensorToTensorRaggedTensorToTensorshapevdvp0p1*
Tindex0	*
Tshape0	*
T0*
num_row_partition_tensors*1
row_partition_types

ROW_SPLITS
ROW_SPLITS
.
outIdentityRaggedTensorToTensor*
T0"ª