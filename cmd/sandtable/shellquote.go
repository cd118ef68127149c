package main

import "strings"

// shellQuote returns s as one POSIX shell word: as it is when every byte is
// one no shell treats specially, else in single quotes, inside which only
// the quote itself needs escaping. The output of explain pastes into sh,
// bash and zsh alike.
func shellQuote(s string) string {
	if s == "" {
		return "''"
	}
	if strings.IndexFunc(s, unsafeInShell) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// unsafeInShell is every rune outside [A-Za-z0-9] and "_@%+=:,./-".
func unsafeInShell(r rune) bool {
	switch {
	case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9':
		return false
	}
	return !strings.ContainsRune("_@%+=:,./-", r)
}

// shellJoin quotes each word and joins them with spaces.
func shellJoin(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = shellQuote(w)
	}
	return strings.Join(q, " ")
}
