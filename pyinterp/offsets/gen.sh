#!/bin/sh
# Regenerates pyinterp/offsets/3.N.json from each pyenv interpreter's own
# installed headers (Include/ and Include/internal/): the C compiler
# computes every offset with offsetof on the real structures. Run after
# adding a CPython version; commit what it writes.
set -eu
root=$(pyenv root)
here=$(dirname "$0")
for dir in "$root"/versions/3.*; do
	v=$(basename "$dir")
	m=${v%.*}
	inc="$dir/include/python$m"
	[ -d "$inc/internal" ] || continue
	tmp=$(mktemp)
	cc -I"$inc" -o "$tmp" "$here/pyoffsets.c"
	"$tmp" > "$here/$m.json"
	rm -f "$tmp"
	echo "$m: $inc"
done
