
4
in0Placeholder*
dtype0*
shape
:

outSnapshotin0*
T0"ª