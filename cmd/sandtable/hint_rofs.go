package main

import (
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/sandtable/sandtable/sandbox"
)

// tailMax is how much of CMD's stderr run keeps to look for read-only
// paths in: the end of it, where a failing tool says why.
const tailMax = 16 << 10

// stderrTail passes everything CMD writes to stderr on as it arrives and
// keeps the last tailMax bytes.
type stderrTail struct {
	w   io.Writer
	mu  sync.Mutex
	buf []byte
}

func (t *stderrTail) Write(p []byte) (int, error) {
	t.mu.Lock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > 2*tailMax {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-tailMax:]...)
	}
	t.mu.Unlock()
	return t.w.Write(p)
}

func (t *stderrTail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.buf
	if len(b) > tailMax {
		b = b[len(b)-tailMax:]
	}
	return string(b)
}

// teeStderr returns the tail CMD's stderr goes through, or nil when
// sandtable's stderr is a terminal or /dev/null (a character device), which
// reaches CMD as it is: a pipe in between would change what CMD sees (a
// terminal no longer one), so there is no hint then.
func teeStderr() *stderrTail {
	fi, err := os.Stderr.Stat()
	if err != nil || fi.Mode()&os.ModeCharDevice != 0 {
		return nil
	}
	return &stderrTail{w: os.Stderr}
}

// hintPatterns are the lines readOnlyHints looks for, and the paths in
// them; compiled on first use, after a failed run only.
var hintPatterns = sync.OnceValue(func() [4]*regexp.Regexp {
	return [4]*regexp.Regexp{
		regexp.MustCompile(`(?i)read-only file system|\bEROFS\b|errno 30\b`),
		regexp.MustCompile(`(?i)permission denied|\bEACCES\b|errno 13\b`),
		regexp.MustCompile(`(?:^|[\s'"(\[=:‘“\x60])(/[^\s'"():,;\]\x60‘’“”]+)`),
		regexp.MustCompile(`(?i)no such file or directory|\bENOENT\b|errno 2\b|not found|cannot open|not a directory`),
	}
})

// readOnlyHints are what run adds after a failed CMD: for each path its
// stderr names in a failure (missing, read-only, permission denied) that
// exists on the host and that the sandbox hides or redacts, the row and
// the --reveal that shows it; for each path it reports as a read-only file
// system, or as permission denied where the host would allow the write,
// and that lies outside every place the sandbox makes writable, the
// --write that would grant it (and what creates it first). At most three.
func readOnlyHints(stderr string, cfg sandbox.Config) []string {
	writable := append([]string{cfg.Workspace, "/tmp", "/dev", "/proc", "/sys"}, cfg.Write...)
	if root, err := sandbox.CacheRoot(); err == nil && root != "" && !cfg.NoCache {
		writable = append(writable, root)
	}
	home, _ := os.UserHomeDir()
	p := hintPatterns()
	readOnlyLine, deniedLine, pathInLine, missingLine := p[0], p[1], p[2], p[3]
	var hints []string
	seen := map[string]bool{}
	for line := range strings.Lines(stderr) {
		rofs := readOnlyLine.MatchString(line)
		denied := deniedLine.MatchString(line)
		if !rofs && !denied && !missingLine.MatchString(line) {
			continue
		}
		for _, m := range pathInLine.FindAllStringSubmatch(line, -1) {
			p := filepath.Clean(strings.TrimRight(m[1], "."))
			if seen[p] || len(hints) == 3 || !printable(p) {
				continue
			}
			seen[p] = true
			if h := hiddenHint(p, cfg); h != "" {
				hints = append(hints, h)
				continue
			}
			if !rofs && !denied || under(p, writable) {
				continue
			}
			if h, grant := grantHint(p, home); h != "" && !seen["grant:"+grant] {
				seen["grant:"+grant] = true
				hints = append(hints, h)
			}
		}
	}
	if len(hints) > 0 && cfg.NoCache {
		hints = append(hints, "sandtable: hint: with --no-cache the tools' caches are the host's, read-only; without it each is private to the sandbox and writable")
	}
	return hints
}

// hiddenHint names the row that hides p in the sandbox cfg describes, or
// redacts it, and the --reveal that shows it (or that a flag of the
// caller's own hid it); "" when the sandbox shows p.
func hiddenHint(p string, cfg sandbox.Config) string {
	if _, err := os.Lstat(p); err != nil {
		return "" // missing on the host too: not the sandbox's doing
	}
	a, err := sandbox.Why(runtime.GOOS, cfg, p)
	if err != nil || a.Decision != "hidden" && a.Decision != "redacted" {
		return ""
	}
	msg := "sandtable: hint: " + p + " is " + a.Decision + " in the sandbox by rule " + a.Rule.ID + " (" + a.Rule.Source + ")"
	switch {
	case a.Change != "" && a.Refused != nil:
		msg += "; " + a.Change + " is refused by " + a.Refused.ID
	case a.Change != "":
		msg += "; to show it to the command, run again with " + a.Change + " (sandtable why " + shellQuote(p) + " says more)"
	case a.Via == nil && a.Kind != "socket":
		msg += ", for a --hide of this run"
	}
	return msg
}

// grantHint says how to let the command write p, which the host would let
// this user write: --write on p if it exists, else on the directory that
// holds it, created first; never on the home directory or above it, which
// the sandbox refuses to make writable.
func grantHint(p, home string) (hint, grant string) {
	anc := p
	for {
		if _, err := os.Lstat(anc); err == nil {
			break
		}
		if anc == "/" {
			return "", ""
		}
		anc = filepath.Dir(anc)
	}
	if !hostWritable(anc) {
		return "", "" // the host refuses it too: not the sandbox's doing
	}
	msg := "sandtable: hint: " + p + " is read-only in the sandbox (outside the workspace, everything is)"
	if dotInHome(p, home) {
		// CMD chose what its stderr says: a hint must not talk the
		// caller into granting what runs outside the sandbox later.
		return msg + "; no --write is suggested for a dot path in the home directory (shell startup files, ~/.ssh, ~/.config), which programs outside the sandbox read as configuration", p
	}
	grant, create := anc, ""
	if anc != p {
		if fi, err := os.Stat(anc); err == nil && fi.IsDir() && (anc == home || under(home, []string{anc})) {
			rest := strings.TrimPrefix(strings.TrimPrefix(p, anc), "/")
			first, more, _ := strings.Cut(rest, "/")
			grant = filepath.Join(anc, first)
			// A name with more below it is a directory; the last name may
			// be the file itself.
			create = "mkdir -p " + shellQuote(grant)
			if more == "" {
				create = "touch " + shellQuote(grant) + " for a file, mkdir -p " + shellQuote(grant) + " for a directory"
			}
		}
	}
	if grant == home || home != "" && under(home, []string{grant}) {
		return msg + "; --write cannot grant the home directory or a directory above it", grant
	}
	msg += "; to let the command write it, run again with --write " + shellQuote(grant)
	if create != "" {
		msg += " (create it first: " + create + ")"
	}
	return msg, grant
}

// dotInHome reports whether p lies in the home directory below a name
// that starts with a dot.
func dotInHome(p, home string) bool {
	rest, ok := strings.CutPrefix(p, strings.TrimSuffix(home, "/")+"/")
	return home != "" && home != "/" && ok && strings.HasPrefix(rest, ".")
}

// printable reports whether a hint may print p: CMD wrote it, and a hint
// must not carry its terminal escapes (ESC, CSI, BEL, any control
// character, or a byte that is not UTF-8) to the user's screen as
// sandtable's own words.
func printable(p string) bool {
	return utf8.ValidString(p) && strings.IndexFunc(p, unicode.IsControl) < 0
}

// under reports whether p is one of dirs or lies inside one.
func under(p string, dirs []string) bool {
	for _, d := range dirs {
		if d != "" && (p == d || strings.HasPrefix(p, strings.TrimSuffix(d, "/")+"/")) {
			return true
		}
	}
	return false
}
