
,
sPlaceholder*
dtype0*
shape:
,
lPlaceholder*
dtype0*
shape:
,
dPlaceholder*
dtype0*
shape:
;
RaggedRangeRaggedRangesld*
Tsplits0	*
T0
%
outIdentityRaggedRange*
T0	
)
out_1IdentityRaggedRange:1*
T0"ª