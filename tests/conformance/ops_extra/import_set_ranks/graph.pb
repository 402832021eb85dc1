
2
aPlaceholder*
dtype0*
shape
:
6
bPlaceholder*
dtype0*
shape:
u
DenseToDenseSetOperationDenseToDenseSetOperationab*
T0*
set_operationunion*
validate_indices(
2
outIdentityDenseToDenseSetOperation*
T0	"ª