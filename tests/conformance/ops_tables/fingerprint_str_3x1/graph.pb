
/
dataPlaceholder*
dtype0*
shape:
1
methodPlaceholder*
dtype0*
shape:
1
FingerprintFingerprintdatamethod*
T0
%
outIdentityFingerprint*
T0"ª