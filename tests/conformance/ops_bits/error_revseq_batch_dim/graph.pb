
4
in0Placeholder*
dtype0*
shape
:
0
in1Placeholder*
dtype0	*
shape:
U
outReverseSequencein0in1*

Tlen0	*
T0*
	batch_dim*
seq_dim"ª