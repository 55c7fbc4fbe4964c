// Package didyoumean suggests the name a user most likely meant when they
// mistyped one: an arm, a lab, a subcommand.
package didyoumean

import (
	"strings"
	"unicode/utf8"
)

// Suggest returns " (did you mean NAME?)" for the candidate closest to
// word, case aside, when it is close enough to be a slip (a letter or two
// swapped, dropped or added, or the same in another case), and "" when
// none is.
func Suggest(word string, candidates []string) string {
	best, bestD := "", -1
	w := strings.ToLower(word)
	for _, c := range candidates {
		d := distance(w, strings.ToLower(c))
		if bestD < 0 || d < bestD {
			best, bestD = c, d
		}
	}
	// A slip: at most a third of the word's letters, and at least two
	// (one transposed pair).
	if bestD < 0 || bestD > max(2, utf8.RuneCountInString(word)/3) {
		return ""
	}
	return " (did you mean " + best + "?)"
}

// distance is the optimal string alignment distance of a and b: the
// edits (insert, delete, substitute, swap of neighbours) from one to the
// other.
func distance(a, b string) int {
	s, t := []rune(a), []rune(b)
	d := make([][]int, len(s)+1)
	for i := range d {
		d[i] = make([]int, len(t)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(s); i++ {
		for j := 1; j <= len(t); j++ {
			cost := 1
			if s[i-1] == t[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && s[i-1] == t[j-2] && s[i-2] == t[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(s)][len(t)]
}
