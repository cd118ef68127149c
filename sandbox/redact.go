package sandbox

import (
	"bytes"
	"io"
	"os"
	"regexp"
	"strings"
	"sync"
)

// redactMax is the largest file the sandbox redacts; a larger one is
// served empty, as a hidden file would be.
const redactMax = 1 << 20

// redactFacts finds the redact section's files under $HOME (and the
// password database's home, as the default hidden set does) and reads
// each one's redacted copy. A missing, unreadable, hidden or revealed
// file, or one that is not a regular file, is left as it is on Linux; on
// macOS, whose rule denies the file whole, every one but a hidden or
// revealed file is listed, missing or not, as the default hidden set is.
func redactFacts(res *resolved, goos string, cfg Config, p *plan) error {
	r, homeDirs := res.r, res.homes
	if homeDirs.err != nil || len(redactFiles) == 0 {
		return nil // hiddenFacts reported a bad home
	}
	homes := homeDirs.list()
	seen, seenReal := map[string]bool{}, map[string]bool{}
	for _, h := range homes {
		for _, rf := range redactFiles {
			if rf.underHome && h == "" {
				continue
			}
			path := redactPath(rf, h)
			if path == "" || seen[path] || isRevealed(cfg.Reveal, path) {
				continue
			}
			seen[path] = true
			real, fi, err := r.resolve(path)
			if goos == "darwin" {
				if (err == nil || isMissing(err)) && !seenReal[real] && !underHidden(p, real) {
					seenReal[real] = true
					p.redacted = append(p.redacted, ruled(fact(real, kindFile, p.workspace), rf.id))
					p.redactData = append(p.redactData, nil)
				}
				continue
			}
			if err != nil || !fi.Mode().IsRegular() || seenReal[real] {
				continue
			}
			viaInput(res, refuseRedactFile, "redacted path", path)
			if underHidden(p, real) {
				continue
			}
			seenReal[real] = true
			data, ok := readRedactable(real)
			if !ok {
				continue
			}
			p.redacted = append(p.redacted, ruled(fact(real, kindFile, p.workspace), rf.id))
			p.redactData = append(p.redactData, redact(data, rf))
		}
	}
	return nil
}

func redactPath(rf redactFile, home string) string {
	if rf.env != "" {
		return redactEnvPath(rf, os.LookupEnv)
	}
	if rf.underHome {
		return home + "/" + rf.path
	}
	return rf.path
}

func isRevealed(reveal []string, path string) bool {
	for _, r := range reveal {
		if r == path {
			return true
		}
	}
	return false
}

// isRedactPath reports whether path is a redact row's file under home, which
// Config.Reveal may name to pass the file whole.
func isRedactPath(path, home string) bool {
	for _, rf := range redactFiles {
		if (!rf.underHome || home != "") && redactPath(rf, home) == path {
			return true
		}
	}
	return false
}

// underHidden reports whether real is a hidden path or lies in one: it is
// hidden whole, and a copy bound there would show through.
func underHidden(p *plan, real string) bool {
	for _, h := range p.hidden {
		if h.path == real || h.kind == kindDir && strings.HasPrefix(real, h.path+"/") {
			return true
		}
	}
	return false
}

// readRedactable reads a regular file of at most redactMax bytes; a larger
// one reads as empty. It reports false when the file cannot be read.
func readRedactable(real string) ([]byte, bool) {
	f, err := os.Open(real)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil, false
	}
	if fi.Size() > redactMax {
		return []byte{}, true
	}
	data, err := io.ReadAll(io.LimitReader(f, redactMax+1))
	if err != nil {
		return nil, false
	}
	if len(data) > redactMax {
		return []byte{}, true
	}
	return data, true
}

// urlCredentials is the user:password@ (or token@) of a URL.
var urlCredentials = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://)[^/@\s"'<>]*@`) })

// redact returns data without the lines whose key is one of rf.keys (a
// commented-out line too, and in ini one after a [section] header on the
// same line), and, with rf.urls, without the credentials of any URL. In
// ini, a removed value continued with a trailing backslash goes with its
// lines; in yaml, a removed key's block (the more indented lines after
// it) does, and a line naming a removed key inside a flow mapping ({...})
// goes whole, with the lines until its brackets close.
func redact(data []byte, rf redactFile) []byte {
	out := make([]byte, 0, len(data))
	skipIndent, skipFlow, continued := -1, 0, false
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line = data[:i+1]
		}
		data = data[len(line):]
		text := string(line)
		indent := len(text) - len(strings.TrimLeft(text, " \t"))
		if continued {
			continued = endsContinued(text)
			continue
		}
		if skipFlow > 0 {
			skipFlow += flowDepth(text)
			continue
		}
		if skipIndent >= 0 {
			if strings.TrimSpace(text) == "" || indent > skipIndent {
				continue
			}
			skipIndent = -1
		}
		if key, value := lineKey(text, rf.yaml); key != "" && hasKey(rf.keys, key) {
			if v := strings.TrimSpace(value); rf.yaml && (v == "" || v[0] == '|' || v[0] == '>') {
				skipIndent = indent
			}
			continued = !rf.yaml && endsContinued(text)
			if rf.yaml {
				skipFlow = max(flowDepth(text), 0)
			}
			continue
		}
		if rf.yaml && flowNamesKey(text, rf.keys) {
			skipFlow = max(flowDepth(text), 0)
			continue
		}
		if rf.urls {
			line = urlCredentials().ReplaceAll(line, []byte("$1"))
		}
		out = append(out, line...)
	}
	return out
}

func hasKey(keys []string, key string) bool {
	for _, k := range keys {
		if strings.EqualFold(k, key) {
			return true
		}
	}
	return false
}

// lineKey is the key a configuration line sets, and the rest of it, with a
// comment marker before it ignored: KEY=VALUE, npm's //registry/:KEY=VALUE,
// and ini's KEY: VALUE; in yaml KEY: VALUE (a list item's "- " and
// quotes around the key dropped).
func lineKey(line string, yaml bool) (key, value string) {
	s := strings.TrimSpace(line)
	s = strings.TrimSpace(strings.TrimLeft(s, "#;"))
	if yaml {
		s = strings.TrimSpace(strings.TrimPrefix(s, "- "))
		k, v, ok := strings.Cut(s, ":")
		if !ok {
			return "", ""
		}
		return strings.Trim(strings.TrimSpace(k), `"'`), v
	}
	s = strings.TrimSpace(afterSection(s))
	if k, v, ok := strings.Cut(s, "="); ok {
		if i := strings.LastIndexByte(k, ':'); i >= 0 {
			k = k[i+1:]
		}
		return strings.Trim(strings.TrimSpace(k), `"'`), v
	}
	if k, v, ok := strings.Cut(s, ":"); ok {
		return strings.Trim(strings.TrimSpace(k), `"'`), v
	}
	return "", ""
}

// afterSection drops an ini [section] or git [section "sub"] header from
// the start of s: git reads a key after it on the same line.
func afterSection(s string) string {
	if !strings.HasPrefix(s, "[") {
		return s
	}
	quoted := false
	for i := 1; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && quoted:
			i++
		case c == '"':
			quoted = !quoted
		case c == ']' && !quoted:
			return s[i+1:]
		}
	}
	return ""
}

// endsContinued reports whether an ini line ends in a backslash that
// continues its value on the next line (git's syntax).
func endsContinued(line string) bool {
	s := strings.TrimRight(line, "\r\n")
	n := len(s) - len(strings.TrimRight(s, "\\"))
	return n%2 == 1
}

// flowDepth is how many more yaml flow brackets line opens than it closes.
func flowDepth(line string) int {
	return strings.Count(line, "{") + strings.Count(line, "[") - strings.Count(line, "}") - strings.Count(line, "]")
}

// flowNamesKey reports whether a yaml line sets one of keys inside a flow
// mapping: {KEY: ...} or , "KEY": ... after the line's own key.
func flowNamesKey(line string, keys []string) bool {
	for i := 0; i < len(line); i++ {
		if c := line[i]; c != '{' && c != ',' {
			continue
		}
		k, _, ok := strings.Cut(line[i+1:], ":")
		if ok && hasKey(keys, strings.Trim(strings.TrimSpace(k), `"'`)) {
			return true
		}
	}
	return false
}

// redactFD is the descriptor a redacted file's copy is read from.
func redactFD(p *plan, path string) string {
	for _, f := range p.redacted {
		if f.path == path {
			return f.fd
		}
	}
	return ""
}
