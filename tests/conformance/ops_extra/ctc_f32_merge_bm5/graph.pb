
,
xPlaceholder*
dtype0*
shape:
,
sPlaceholder*
dtype0*
shape:
e
CTCGreedyDecoderCTCGreedyDecoderxs*
T0*
blank_indexûÿÿÿÿÿÿÿÿ*
merge_repeated(
*
outIdentityCTCGreedyDecoder*
T0	
.
out_1IdentityCTCGreedyDecoder:1*
T0	
.
out_2IdentityCTCGreedyDecoder:2*
T0	
.
out_3IdentityCTCGreedyDecoder:3*
T0"ª