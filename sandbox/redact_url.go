package sandbox

import "strings"

// stripURLCredentials returns s without the credentials of any URL in it:
// after SCHEME: and the slashes or backslashes that follow (none needed
// for http, https, ws, wss, ftp and file, which a WHATWG parser reads
// without them), or after two or more of them alone (a URL relative to
// its scheme), everything up to the last @ before the authority ends at
// / \ ? # or the end of s. Tabs and line breaks inside a URL are skipped
// over, as a WHATWG parser drops them. With bare, a value that is one
// word (no space inside) without a scheme (a proxy's user:password@host:port, which wget and
// requests read) loses what precedes its last @ before a / as well. The
// rule reads more as a URL than any one parser does: over-removal costs a
// setting, under-removal a credential.
func stripURLCredentials(s string, bare bool) string {
	// What one pass leaves can join into a URL with credentials again
	// (//@/@ leaves ///@): passes until none is left; each removes an @.
	for {
		t := stripURLCredentialsOnce(s, bare)
		if t == s {
			return s
		}
		s = t
	}
}

func stripURLCredentialsOnce(s string, bare bool) string {
	if strings.IndexByte(s, '@') < 0 {
		return s
	}
	var b strings.Builder
	done := 0 // s[:done] is written or dropped
	for i := 0; i < len(s); {
		if j, ok := networkPath(s, i); ok {
			end := j
			for end < len(s) && !strings.ContainsRune(`/\?#`, rune(s[end])) {
				end++
			}
			i = j
			if at := strings.LastIndexByte(s[j:end], '@'); at >= 0 {
				b.WriteString(s[done:j])
				done = j + at + 1
				i = done
			}
			continue
		}
		if !isSchemeStart(s, i) {
			i++
			continue
		}
		j := i
		for j < len(s) && (isSchemeByte(s[j]) || isURLBlank(s[j])) {
			j++
		}
		if j >= len(s) || s[j] != ':' {
			i = j
			continue
		}
		scheme := dropURLBlanks(s[i:j])
		j++
		slashes := 0
		for j < len(s) && (s[j] == '/' || s[j] == '\\' || isURLBlank(s[j])) {
			if !isURLBlank(s[j]) {
				slashes++
			}
			j++
		}
		if slashes == 0 && !isSpecialScheme(scheme) {
			i = j
			continue
		}
		end := j
		for end < len(s) && !strings.ContainsRune(`/\?#`, rune(s[end])) {
			end++
		}
		i = j // a URL inside this one's authority is looked at too
		if at := strings.LastIndexByte(s[j:end], '@'); at >= 0 {
			b.WriteString(s[done:j])
			done = j + at + 1
			i = done
		}
	}
	if done > 0 {
		b.WriteString(s[done:])
		s = b.String()
	}
	if bare {
		if w := strings.TrimSpace(s); w != "" && !strings.ContainsRune(w, ' ') {
			lead := strings.Index(s, w)
			end := strings.IndexAny(w, `/\?#`)
			if end < 0 {
				end = len(w)
			}
			if at := strings.LastIndexByte(w[:end], '@'); at >= 0 {
				return s[:lead] + w[at+1:] + s[lead+len(w):]
			}
		}
	}
	return s
}

// networkPath reports whether a URL without its scheme starts at s[i]: a
// run of two or more slashes or backslashes not preceded by a byte of a
// scheme or another slash (tabs and line breaks looked through); j is
// where its authority starts.
func networkPath(s string, i int) (j int, ok bool) {
	if c := s[i]; c != '/' && c != '\\' {
		return 0, false
	}
	k := i - 1
	for k >= 0 && isURLBlank(s[k]) {
		k--
	}
	if k >= 0 && (isSchemeByte(s[k]) || s[k] == '/' || s[k] == '\\') {
		return 0, false
	}
	n := 0
	for j = i; j < len(s) && (s[j] == '/' || s[j] == '\\' || isURLBlank(s[j])); j++ {
		if !isURLBlank(s[j]) {
			n++
		}
	}
	return j, n >= 2
}

// isSchemeStart reports whether a scheme may begin at s[i]: a letter not
// preceded by a byte of a scheme (a tab or line break between them is
// looked through).
func isSchemeStart(s string, i int) bool {
	if c := s[i]; !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
		return false
	}
	k := i - 1
	for k >= 0 && isURLBlank(s[k]) {
		k--
	}
	return k < 0 || !isSchemeByte(s[k])
}

func isSchemeByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'
}

// isURLBlank is what a WHATWG parser removes from a URL wherever it is.
func isURLBlank(c byte) bool { return c == '\t' || c == '\n' || c == '\r' }

func dropURLBlanks(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x80 && isURLBlank(byte(r)) {
			return -1
		}
		return r
	}, s)
}

// isSpecialScheme is a WHATWG special scheme, whose authority needs no
// slashes before it (https:user:pass@host is https://user:pass@host/).
func isSpecialScheme(scheme string) bool {
	switch strings.ToLower(scheme) {
	case "http", "https", "ws", "wss", "ftp", "file":
		return true
	}
	return false
}
