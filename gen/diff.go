package gen

import (
	"fmt"
	"strings"
)

// Diff returns a line diff of old and new in unified style (no hunk
// context merging), or "" when they are equal. It is for -check's report,
// where the files are a few thousand lines at most.
func Diff(name string, old, new []byte) string {
	if string(old) == string(new) {
		return ""
	}
	a := strings.SplitAfter(string(old), "\n")
	b := strings.SplitAfter(string(new), "\n")
	lcs := lcsTable(a, b)
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s (committed)\n+++ %s (generated)\n", name, name)
	i, j := 0, 0
	line := func(prefix, s string) {
		out.WriteString(prefix + strings.TrimSuffix(s, "\n") + "\n")
	}
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			i, j = i+1, j+1
		case j < len(b) && (i == len(a) || lcs[i][j+1] >= lcs[i+1][j]):
			fmt.Fprintf(&out, "@@ +%d @@ ", j+1)
			line("+", b[j])
			j++
		default:
			fmt.Fprintf(&out, "@@ -%d @@ ", i+1)
			line("-", a[i])
			i++
		}
	}
	return out.String()
}

// lcsTable returns lcs[i][j], the length of the longest common subsequence
// of a[i:] and b[j:]: the text diff walks it line by line, the semantic diff
// rule id by rule id.
func lcsTable(a, b []string) [][]int {
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	return lcs
}
