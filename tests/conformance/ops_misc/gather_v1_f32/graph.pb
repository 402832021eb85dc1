
,
pPlaceholder*
dtype0*
shape:
,
iPlaceholder*
dtype0*
shape:
M
GatherGatherpi*
Tindices0*
Tparams0*
validate_indices(
 
outIdentityGather*
T0"ª