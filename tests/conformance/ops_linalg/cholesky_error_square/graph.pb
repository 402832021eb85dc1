
,
aPlaceholder*
dtype0*
shape:
 
CholeskyCholeskya*
T0
"
outIdentityCholesky*
T0"ª