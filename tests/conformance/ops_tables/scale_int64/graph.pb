
1
imagesPlaceholder*
dtype0	*
shape:
/
sizePlaceholder*
dtype0*
shape:
0
scalePlaceholder*
dtype0*
shape:
6
translationPlaceholder*
dtype0*
shape:
}
ScaleAndTranslateScaleAndTranslateimagessizescaletranslation*
T0	*
	antialias(*
kernel_type
lanczos3
+
outIdentityScaleAndTranslate*
T0"ª