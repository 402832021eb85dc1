
,
bPlaceholder*
dtype0*
shape:
,
sPlaceholder*
dtype0*
shape:
,
nPlaceholder*
dtype0*
shape:
+
ShardedFilenameShardedFilenamebsn
)
outIdentityShardedFilename*
T0"ª