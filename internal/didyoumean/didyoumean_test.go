package didyoumean

import "testing"

func TestSuggest(t *testing.T) {
	arms := []string{"TemporaryFile", "NamedTemporaryFile", "NamedTemporaryFile-keep", "mkstemp-fsync", "mkstemp-fdatasync"}
	for _, c := range []struct{ word, want string }{
		{"NamedTemporaryFlie", " (did you mean NamedTemporaryFile?)"}, // two letters swapped
		{"namedtemporaryfile", " (did you mean NamedTemporaryFile?)"}, // another case
		{"TemporaryFiel", " (did you mean TemporaryFile?)"},
		{"mkstemp-fsnyc", " (did you mean mkstemp-fsync?)"},
		{"mkstemp-fdatasnc", " (did you mean mkstemp-fdatasync?)"},
		{"sqlite", ""}, // nothing like it
		{"x", ""},
	} {
		if got := Suggest(c.word, arms); got != c.want {
			t.Errorf("Suggest(%q) = %q, want %q", c.word, got, c.want)
		}
	}
	if got := Suggest("al", []string{"all", "run", "list"}); got != " (did you mean all?)" {
		t.Errorf("Suggest(al) = %q", got)
	}
}
