// Package envval tells which environment values carry a credential: the
// matchers of the strip-env-values section (rules/common.yaml), shared by
// the generator, which checks each row's examples with them, and the
// runtime, which calls them on every variable of a spawn.
package envval

import "strings"

// Kinds are the strip-env-values vocabulary, by the word a row names.
var Kinds = map[string]func(string) bool{
	"url-password": URLPassword,
	"dsn-password": DSNPassword,
}

// URLPassword reports whether v holds a URL whose userinfo has a
// password, scheme://user:PASSWORD@host, anywhere in it (a list of URLs,
// a JDBC URL). A user alone (ssh://git@host) is not one.
func URLPassword(v string) bool {
	for rest := v; ; {
		i := strings.Index(rest, "://")
		if i < 0 {
			return false
		}
		if schemeBefore(rest[:i]) {
			auth := rest[i+3:]
			if end := strings.IndexAny(auth, "/?# \t\n,;"); end >= 0 {
				auth = auth[:end]
			}
			if at := strings.LastIndexByte(auth, '@'); at >= 0 {
				if c := strings.IndexByte(auth[:at], ':'); c >= 0 && c < at-1 {
					return true
				}
			}
		}
		rest = rest[i+3:]
	}
}

// schemeBefore reports whether s ends in a URL scheme: a letter, then
// letters, digits, +, - or .
func schemeBefore(s string) bool {
	j := len(s)
	for j > 0 && isSchemeChar(s[j-1]) {
		j--
	}
	for j < len(s) && !isLetter(s[j]) {
		j++ // "1+http" is no scheme, but its "http" would be
	}
	return j < len(s)
}

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

func isSchemeChar(c byte) bool {
	return isLetter(c) || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'
}

// DSNPassword reports whether v is a connection string with a password
// in it: a password=, passwd= or pwd= key with a value (libpq's keywords,
// ODBC and ADO.NET's Password=...;, a URL's query), or Go's MySQL form,
// user:PASSWORD@tcp(host) or @unix(path).
func DSNPassword(v string) bool {
	start := 0
	for i := 0; i <= len(v); i++ {
		if i < len(v) && !isDSNSep(v[i]) {
			continue
		}
		if keyPassword(v[start:i]) {
			return true
		}
		start = i + 1
	}
	for _, proto := range []string{"@tcp(", "@unix("} {
		if at := strings.Index(v, proto); at > 0 {
			user := v[:at]
			if s := strings.LastIndexAny(user, " \t;"); s >= 0 {
				user = user[s+1:]
			}
			if c := strings.IndexByte(user, ':'); c >= 0 && c < len(user)-1 {
				return true
			}
		}
	}
	return false
}

func isDSNSep(c byte) bool {
	return c == ';' || c == ' ' || c == '\t' || c == '&' || c == '?' || c == '\n'
}

// keyPassword reports whether one key=value item of a connection string
// is a password with a value.
func keyPassword(item string) bool {
	k, val, ok := strings.Cut(item, "=")
	if !ok || val == "" {
		return false
	}
	k = strings.TrimSpace(k)
	return strings.EqualFold(k, "password") || strings.EqualFold(k, "passwd") || strings.EqualFold(k, "pwd")
}
