package escape

import (
	"reflect"
	"testing"
)

// What a terminal acts on comes out as the Go escape that names it; what
// it prints stays as it is, byte for byte.
func TestLine(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain café ✓", "plain café ✓"},
		{"a\nb\tc\r", `a\nb\tc\r`},
		{"\x1b[31mRED", `\x1b[31mRED`},
		{"del\x7f", `del\x7f`},
		{"c1\u0085", `c1\u0085`},
		{"bidi\u202eevil", `bidi\u202eevil`},
		{"zero\u200bwidth", `zero\u200bwidth`},
		{"line\u2028sep", `line\u2028sep`},
		{"a\xffb", `a\xffb`},
		{"", ""},
	} {
		if got := Line(tc.in); got != tc.want {
			t.Errorf("Line(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

type inner struct {
	Name   string
	Stderr string
	hidden string
}

type outer struct {
	Title string
	Ptr   *inner
	List  []inner
	Any   any
	Map   map[string]string
	Nil   map[string]string
}

// Every string under the pointer is escaped, map keys too; the fields
// named to keep their lines keep newlines and tabs and nothing else;
// unexported fields are left alone.
func TestStrings(t *testing.T) {
	v := outer{
		Title: "t\n",
		Ptr:   &inner{Name: "n\x1b", Stderr: "l1\n\tl2\x1b", hidden: "h\n"},
		List:  []inner{{Name: "x\u202e", Stderr: "s\r\n"}},
		Any:   &inner{Stderr: "a\nb"},
		Map:   map[string]string{"k\x1b": "v\n"},
	}
	Strings(&v, "Stderr")
	want := outer{
		Title: `t\n`,
		Ptr:   &inner{Name: `n\x1b`, Stderr: "l1\n\tl2\\x1b", hidden: "h\n"},
		List:  []inner{{Name: `x\u202e`, Stderr: "s\\r\n"}},
		Any:   &inner{Stderr: "a\nb"},
		Map:   map[string]string{`k\x1b`: `v\n`},
	}
	if !reflect.DeepEqual(v, want) {
		t.Errorf("got  %#v\nwant %#v", v, want)
	}
}
