package pyinterp

// The three encodings of "instruction offset -> line" CPython has used,
// decoded as the formats are documented (Objects/lnotab_notes.txt for 3.8-
// 3.10, Objects/locations.md for 3.11+), in user space: the tables are
// variable-length and the BPF side records only the offset.

// lnotabLine: 3.8, 3.9 co_lnotab, pairs of (bytecode byte increment,
// signed line increment); target is a byte offset.
func lnotabLine(t []byte, first, target int) int {
	line, addr := first, 0
	for i := 0; i+1 < len(t); i += 2 {
		addr += int(t[i])
		if addr > target {
			break
		}
		line += int(int8(t[i+1]))
	}
	return line
}

// linetable310Line: 3.10 co_linetable, pairs of (byte length of a range,
// signed line delta, -128 for "no line"); target is a byte offset.
func linetable310Line(t []byte, first, target int) int {
	line, end := first, 0
	for i := 0; i+1 < len(t); i += 2 {
		start := end
		end += int(t[i])
		cur := -1
		if d := int8(t[i+1]); d != -128 {
			line += int(d)
			cur = line
		}
		if target >= start && target < end {
			return cur
		}
	}
	return -1
}

// locationsLine: 3.11+ co_linetable ("location table"). Each entry starts
// with a byte 1CCCCLLL: code C, length L+1 code units; the code says what
// follows: 15 no location, 14 long form (svarint line delta, then end line,
// column, end column varints), 13 line delta only (svarint), 10-12 one
// line (delta C-10) and two column bytes, 0-9 same line and one column
// byte. Varints are 6 bits a byte, bit 6 set when more follow; svarint
// keeps the sign in bit 0. target is in code units.
func locationsLine(t []byte, first, target int) int {
	line, addr, i := first, 0, 0
	varint := func() int {
		if i >= len(t) {
			return 0
		}
		b := t[i]
		i++
		v, shift := int(b&63), 0
		for b&64 != 0 && i < len(t) {
			b = t[i]
			i++
			shift += 6
			v |= int(b&63) << shift
		}
		return v
	}
	svarint := func() int {
		v := varint()
		if v&1 != 0 {
			return -(v >> 1)
		}
		return v >> 1
	}
	for i < len(t) {
		b := t[i]
		i++
		code, length := int(b>>3)&15, int(b&7)+1
		noLine := false
		switch {
		case code == 15:
			noLine = true
		case code == 14:
			line += svarint()
			varint()
			varint()
			varint()
		case code == 13:
			line += svarint()
		case code >= 10:
			line += code - 10
			i += 2
		default:
			i++
		}
		if target < addr+length {
			if noLine {
				return -1
			}
			return line
		}
		addr += length
	}
	return -1
}
