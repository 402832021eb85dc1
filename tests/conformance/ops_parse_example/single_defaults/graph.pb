
.
serPlaceholder*
dtype0*
shape:
<
ConstConst*
dtype0	*
valueB	R
ÿÿÿÿÿÿÿÿÿ
8
Const_1Const*
dtype0*
valueBBaBb
¾
parseParseSingleExampleserConstConst_1*
Tdense
2	*

dense_keys

ages*
dense_shapes
::*

num_sparse*
sparse_keys
tags*
sparse_types
2

outIdentityparse*
T0	
#
out_1Identityparse:1*
T0
#
out_2Identityparse:2*
T0	
#
out_3Identityparse:3*
T0	
#
out_4Identityparse:4*
T0"ª