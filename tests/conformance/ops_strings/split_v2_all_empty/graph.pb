
,
xPlaceholder*
dtype0*
shape:
,
sPlaceholder*
dtype0*
shape:
=
StringSplitV2StringSplitV2xs*
maxsplitÿÿÿÿÿÿÿÿÿ
'
outIdentityStringSplitV2*
T0	
+
out_1IdentityStringSplitV2:1*
T0
+
out_2IdentityStringSplitV2:2*
T0	"ª