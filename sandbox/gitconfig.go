package sandbox

// gitEntry is one key of a git config file: section and name
// lower-cased, as git compares them; sub, the subsection, as written
// ([section "sub"] is case-sensitive; the old [section.sub] is not, and
// is lower-cased); value unquoted and unescaped. A key with no = has
// noValue (a boolean true).
type gitEntry struct {
	section, sub, name string
	value              string
	noValue            bool
}

// parseGitConfig is the keys of a git config file as git reads them
// (readGitConfig, git's config.c, which the redaction reads with too): up
// to the first line git refuses, where git stops. A key before any
// section header is none.
func parseGitConfig(data []byte) []gitEntry {
	cfg := readGitConfig(data)
	out := make([]gitEntry, 0, len(cfg.items))
	for _, it := range cfg.items {
		if it.header || it.base == "" {
			continue
		}
		section, sub, _ := gitSplitBase(it.base)
		out = append(out, gitEntry{section: section, sub: sub, name: it.key, value: it.value, noValue: !it.valued})
	}
	return out
}

func isGitAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
