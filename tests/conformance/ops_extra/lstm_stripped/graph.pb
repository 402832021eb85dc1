

xPlaceholder*
dtype0
#
cs_prevPlaceholder*
dtype0
"
h_prevPlaceholder*
dtype0

wPlaceholder*
dtype0

wciPlaceholder*
dtype0

wcfPlaceholder*
dtype0

wcoPlaceholder*
dtype0

bPlaceholder*
dtype0
P
LSTMBlockCellLSTMBlockCellxcs_prevh_prevwwciwcfwcob*
T0
'
outIdentityLSTMBlockCell*
T0
+
out_1IdentityLSTMBlockCell:1*
T0
+
out_2IdentityLSTMBlockCell:2*
T0
+
out_3IdentityLSTMBlockCell:3*
T0
+
out_4IdentityLSTMBlockCell:4*
T0
+
out_5IdentityLSTMBlockCell:5*
T0
+
out_6IdentityLSTMBlockCell:6*
T0"ª