package sandbox

import (
	"io"
	"os"
	"path"
	"strings"
)

// redactMax is the largest file the sandbox redacts; a larger one is
// served empty, as a hidden file would be.
const redactMax = 1 << 20

// redactFacts finds the redact section's files under $HOME (and the
// password database's home, as the default hidden set does) and reads
// each one's redacted copy, and with a gitconfig row's includes the
// copies of the files it includes. A missing, unreadable, hidden or
// revealed file, or one that is not a regular file, is left as it is on
// Linux; on macOS, whose rule denies the file whole, every one but a
// hidden or revealed file is listed, missing or not, as the default
// hidden set is. A file with another name is refused by the refuse stage
// (no-redact-second-name) on both.
func redactFacts(res *resolved, goos string, cfg Config, p *plan) error {
	r, homeDirs := res.r, res.homes
	if homeDirs.err != nil || len(redactFiles) == 0 {
		return nil // hiddenFacts reported a bad home
	}
	homes := homeDirs.list()
	rd := &redactor{res: res, p: p, reveal: cfg.Reveal, home: homeDirs.home, seenReal: map[string]bool{}}
	seen := map[string]bool{}
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
			if goos != "darwin" {
				rd.add(rf, path, 0)
				continue
			}
			real, fi, err := r.resolve(path)
			if err == nil && fi.Mode().IsRegular() {
				res.input(refuseSubject{in: refuseRedactFile, field: "redacted path", path: path, fi: fi})
			}
			if (err == nil || isMissing(err)) && !rd.seenReal[real] && !underHidden(p, real) {
				rd.seenReal[real] = true
				p.redacted = append(p.redacted, ruled(fact(real, kindFile, p.workspace), rf.id))
				p.redactData = append(p.redactData, nil)
			}
		}
	}
	return nil
}

// redactor adds the Linux copies of one plan's redacted files.
type redactor struct {
	res      *resolved
	p        *plan
	reveal   []string
	home     string // $HOME, for an include under ~/
	seenReal map[string]bool
	included int // the included files served so far
}

// Bounds on the files a gitconfig row's includes add: git's own depth
// (MAX_INCLUDE_DEPTH), and a count. An include past either is left out of
// the copy, so git never reads its file unredacted.
const (
	gitMaxIncludeDepth = 10
	maxRedactIncludes  = 32
)

// add serves path, read by row rf, as a redacted copy, unless it is not the
// sandbox's to serve (missing, not a regular file, hidden, already served,
// and for an included file revealed or in a writable root); depth is how
// many includes led to it.
func (rd *redactor) add(rf redactFile, path string, depth int) {
	r, p := rd.res.r, rd.p
	real, fi, err := r.resolve(path)
	via := viaOf(r)
	if err != nil || !fi.Mode().IsRegular() || rd.seenReal[real] {
		return
	}
	if depth > 0 && (isRevealed(rd.reveal, path) || r.within(real, p.roots)) {
		return // passed whole, or the command's own to write
	}
	rd.res.input(refuseSubject{in: refuseRedactFile, field: "redacted path", path: path, via: via, fi: fi})
	if underHidden(p, real) {
		return
	}
	rd.seenReal[real] = true
	data, ok := readRedactable(real)
	if !ok {
		return
	}
	var copy []byte
	if rf.format == redactFormatGitconfig && rf.includes {
		cfg := readGitConfig(data)
		left := map[int]bool{}
		for i, it := range cfg.items {
			if !it.isInclude() {
				continue
			}
			// Kept when its file is served redacted, or is not the
			// sandbox's to serve; left out when it is not followed.
			target, ok := gitIncludePath(it.value, path, rd.home)
			if !ok || depth >= gitMaxIncludeDepth || rd.included >= maxRedactIncludes {
				left[i] = true
				continue
			}
			rd.included++
			rd.add(rf, target, depth+1)
		}
		copy = cfg.write(rf, func(i int) bool { return left[i] })
	} else {
		copy = redact(data, rf)
	}
	p.redacted = append(p.redacted, ruled(fact(real, kindFile, p.workspace), rf.id))
	p.redactData = append(p.redactData, copy)
}

// gitIncludePath is the file an include's path names, as git's
// handle_path_include finds it: ~/ under home, a relative path beside the
// including file from, an absolute one as it is. A path the sandbox cannot
// place as git would (~user/, %(prefix)/, ~ without a home) is not ok.
func gitIncludePath(value, from, home string) (string, bool) {
	switch {
	case value == "~" || strings.HasPrefix(value, "~/"):
		if home == "" {
			return "", false
		}
		return home + value[1:], true
	case strings.HasPrefix(value, "~"), strings.HasPrefix(value, "%("):
		return "", false
	case strings.HasPrefix(value, "/"):
		return value, true
	}
	return path.Dir(from) + "/" + value, true
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

// redact returns the copy of data that row rf serves: read in the row's
// format, without its keys, and with rf.urls without URL credentials.
// (A gitconfig row's includes are kept as they are: redactor.add follows
// them.)
func redact(data []byte, rf redactFile) []byte {
	switch rf.format {
	case redactFormatNpmrc:
		return redactNpmrc(data, rf)
	case redactFormatYarnrc:
		return redactYarnrc(data, rf)
	case redactFormatPipConf:
		return redactPipConf(data, rf)
	case redactFormatGitconfig:
		return redactGitConfig(data, rf)
	case redactFormatUvToml:
		return redactUvTOML(data, rf)
	case redactFormatWgetrc:
		return redactWgetrc(data, rf)
	}
	return []byte{} // a format without a reader: nothing of the file
}

func hasKey(keys []string, key string) bool {
	for _, k := range keys {
		if strings.EqualFold(k, key) {
			return true
		}
	}
	return false
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

// redactFD is the descriptor a redacted file's copy is read from.
func redactFD(p *plan, path string) string {
	for _, f := range p.redacted {
		if f.path == path {
			return f.fd
		}
	}
	return ""
}
