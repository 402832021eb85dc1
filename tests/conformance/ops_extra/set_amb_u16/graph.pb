
,
aPlaceholder*
dtype0*
shape:
,
bPlaceholder*
dtype0*
shape:
s
DenseToDenseSetOperationDenseToDenseSetOperationab*
T0*
set_operationa-b*
validate_indices(
2
outIdentityDenseToDenseSetOperation*
T0	
6
out_1IdentityDenseToDenseSetOperation:1*
T0
6
out_2IdentityDenseToDenseSetOperation:2*
T0	"ª