package main

import "strings"

// shellQuote returns s as one POSIX shell word: as it is when every byte is
// one no shell treats specially, else in single quotes, inside which only
// the quote itself needs escaping. The output of explain pastes into sh,
// bash and zsh alike. A word with a control character (a name or value
// from the environment with a terminal's escapes in it) is written in
// $'...' with the character escaped, so that explain never sends it to
// the terminal as it is.
func shellQuote(s string) string {
	if s == "" {
		return "''"
	}
	if strings.IndexFunc(s, unsafeInShell) < 0 {
		return s
	}
	if hasTerminalControl(s) {
		return ansiCQuote(s)
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
