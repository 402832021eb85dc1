
,
bPlaceholder*
dtype0*
shape:
,
nPlaceholder*
dtype0*
shape:
(
ShardedFilespecShardedFilespecbn
)
outIdentityShardedFilespec*
T0"ª