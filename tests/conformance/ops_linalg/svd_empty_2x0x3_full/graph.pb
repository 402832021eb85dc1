
,
aPlaceholder*
dtype0*
shape:
=
SvdSvda*
T0*

compute_uv(*
full_matrices(

outIdentitySvd*
T0
!
out_1IdentitySvd:1*
T0
!
out_2IdentitySvd:2*
T0"ª