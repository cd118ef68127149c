package sandbox

import (
	"bytes"
	"io"
	"os"
	"regexp"
	"strings"
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
func redactFacts(r *resolver, goos string, cfg Config, p *plan, roots []string) error {
	home, err := homeDir()
	if err != nil || len(redactFiles) == 0 {
		return nil // hiddenFacts reported a bad home
	}
	homes := []string{home}
	if ph := strings.TrimRight(ownPasswdHome(), "/"); ph != "" && ph != home && home != "" {
		homes = append(homes, ph)
	}
	seen, seenReal := map[string]bool{}, map[string]bool{}
	for _, h := range homes {
		for _, rf := range redactFiles {
			if rf.underHome && h == "" {
				continue
			}
			path := redactPath(rf, h)
			if seen[path] || isRevealed(cfg.Reveal, path) {
				continue
			}
			seen[path] = true
			real, fi, err := r.resolve(path)
			if goos == "darwin" {
				if (err == nil || isMissing(err)) && !seenReal[real] && !underHidden(p, real) {
					seenReal[real] = true
					p.redacted = append(p.redacted, fact(real, kindFile, p.workspace))
					p.redactData = append(p.redactData, nil)
				}
				continue
			}
			if err != nil || !fi.Mode().IsRegular() || seenReal[real] {
				continue
			}
			if err := checkVia(r, "redacted path", path, roots); err != nil {
				return err
			}
			if underHidden(p, real) {
				continue
			}
			seenReal[real] = true
			data, ok := readRedactable(real)
			if !ok {
				continue
			}
			p.redacted = append(p.redacted, fact(real, kindFile, p.workspace))
			p.redactData = append(p.redactData, redact(data, rf))
		}
	}
	return nil
}

func redactPath(rf redactFile, home string) string {
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
var urlCredentials = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://)[^/@\s"'<>]*@`)

// redact returns data without the lines whose key is one of rf.keys (a
// commented-out line too), and, with rf.urls, without the credentials of
// any URL. In yaml, a removed key's block (the more indented lines after
// it) goes with it.
func redact(data []byte, rf redactFile) []byte {
	out := make([]byte, 0, len(data))
	skipIndent := -1
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line = data[:i+1]
		}
		data = data[len(line):]
		text := string(line)
		indent := len(text) - len(strings.TrimLeft(text, " \t"))
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
			continue
		}
		if rf.urls {
			line = urlCredentials.ReplaceAll(line, []byte("$1"))
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

// redactFD is the descriptor a redacted file's copy is read from.
func redactFD(p *plan, path string) string {
	for _, f := range p.redacted {
		if f.path == path {
			return f.fd
		}
	}
	return ""
}
