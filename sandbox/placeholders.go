package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// A missing protected path gets a placeholder (rule protect-placeholder):
// an empty file at its name, which bwrap binds read-only over. A mount
// point must exist on the host, so the file is the host's for the length
// of the run; it must never outlive the run, even when the caller is
// killed or the machine loses power. So the run writes a record of its
// placeholders in a journal outside the workspace, durably, before any of
// them has a name, and the next run (or sandtable probe) reads it and
// removes what a killed run left. README.md, "What stays read-only in the
// workspace", has the states a run goes through and what a kill in each
// leaves.
//
// A placeholder is made nameless (O_TMPFILE) in its directory, marked
// with the record's nonce (xattr placeholderMark), and recorded with its
// device, inode and birth time; only then is it linked at its name. Where
// the file system has no O_TMPFILE it is made under a temporary name the
// record already holds (.sandtable-NONCE-N), recorded once made, then
// renamed into place. A file is removed only when it is an empty regular
// file with the recorded device and inode (and birth time and mark, where
// the file system keeps them): a file the user made, filled or put in its
// place is theirs.

// journalSubdir is the placeholder journal under the XDG state directory.
const journalSubdir = "sandtable/placeholders"

// placeholderJournal is the directory this process records its
// placeholders in: $XDG_STATE_HOME/sandtable/placeholders when
// XDG_STATE_HOME is absolute, else $HOME/.local/state/sandtable/placeholders
// (the default-hidden rows hide-sandtable-journal and
// hide-xdg-sandtable-journal keep it from the sandbox); "" when there is no
// home. It is not created here.
func placeholderJournal() (string, error) {
	if x := os.Getenv("XDG_STATE_HOME"); x != "" {
		p, problem := cleanEnvPath(x)
		if problem == "" {
			return strings.TrimSuffix(p, "/") + "/" + journalSubdir, nil
		}
		if strings.HasPrefix(x, "/") {
			return "", fmt.Errorf("sandbox: placeholder journal: $XDG_STATE_HOME=%q %s: %w", x, problem, ErrBadPath)
		}
	}
	h := readHomes()
	if h.err != nil {
		return "", h.err
	}
	if h.home == "" {
		return "", nil
	}
	return childPath(h.home, ".local/state/"+journalSubdir), nil
}

// crashPoint is called at each step of a run's placeholders with the
// step's name (the states README.md lists); a test sets it to kill the
// process there (TestPlaceholderCrash). It does nothing otherwise.
var crashPoint = func(string) {}

// The record: a header naming the format and the nonce, and one line per
// placeholder:
//
//	sandtable placeholders 1 NONCE
//	e N o|t DEV INO BTIME MARK PATH
//	i N DEV INO BTIME MARK
//
// o: made nameless, its identity known at once; t: made under the
// temporary name, whose identity an i line gives once it is made.
const (
	recordMagic  = "sandtable placeholders 1 "
	recordPrefix = "ph-"
	// recordMax bounds a record (and what a sweep reads of one); a run
	// has a few placeholders per writable root.
	recordMax        = 64 << 10
	recordMaxEntries = 512
	nonceLen         = 32
)

// phEntry is one placeholder of a record.
type phEntry struct {
	path     string
	temp     bool   // made under tempName, then renamed (no O_TMPFILE)
	known    bool   // dev, ino, btime and mark are recorded
	dev, ino uint64 //
	btime    int64  // birth time in ns; 0 when the file system keeps none
	mark     bool   // it carries placeholderMark with the record's nonce
}

// record is a parsed record.
type record struct {
	nonce   string
	entries []phEntry
}

// tempName is the temporary name of record nonce's entry n.
func tempName(nonce string, n int) string {
	return ".sandtable-" + nonce + "-" + strconv.Itoa(n)
}

func recordHeader(nonce string) []byte {
	return []byte(recordMagic + nonce + "\n")
}

func entryLine(n int, e phEntry) []byte {
	k := "o"
	if e.temp {
		k = "t"
	}
	return fmt.Appendf(nil, "e %d %s %d %d %d %d %s\n", n, k, e.dev, e.ino, e.btime, b2i(e.mark), e.path)
}

func identityLine(n int, e phEntry) []byte {
	return fmt.Appendf(nil, "i %d %d %d %d %d\n", n, e.dev, e.ino, e.btime, b2i(e.mark))
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

var errBadRecord = errors.New("not a placeholder record")

// parseRecord reads a record strictly; a final line without its newline
// (a write cut short) is left out.
func parseRecord(data []byte) (record, error) {
	var r record
	if len(data) > recordMax {
		return r, errBadRecord
	}
	if i := bytes.LastIndexByte(data, '\n'); i+1 < len(data) {
		data = data[:i+1]
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) < 1 || !strings.HasPrefix(lines[0], recordMagic) {
		return r, errBadRecord
	}
	r.nonce = strings.TrimPrefix(lines[0], recordMagic)
	if !isNonce(r.nonce) {
		return r, errBadRecord
	}
	for _, l := range lines[1:] {
		f := strings.Fields(l)
		switch {
		case len(f) >= 8 && f[0] == "e":
			n, err := strconv.Atoi(f[1])
			if err != nil || n != len(r.entries) || n >= recordMaxEntries || f[2] != "o" && f[2] != "t" {
				return r, errBadRecord
			}
			// The path is the rest of the line: it may hold spaces.
			p := l
			for range 7 {
				_, p, _ = strings.Cut(strings.TrimLeft(p, " "), " ")
			}
			if checkPath("placeholder", p) != nil || p == "/" {
				return r, errBadRecord
			}
			e := phEntry{path: p, temp: f[2] == "t"}
			if !parseIdentity(&e, f[3:7]) {
				return r, errBadRecord
			}
			e.known = !e.temp
			r.entries = append(r.entries, e)
		case len(f) == 6 && f[0] == "i":
			n, err := strconv.Atoi(f[1])
			if err != nil || n < 0 || n >= len(r.entries) || !r.entries[n].temp {
				return r, errBadRecord
			}
			if !parseIdentity(&r.entries[n], f[2:6]) {
				return r, errBadRecord
			}
			r.entries[n].known = true
		default:
			return r, errBadRecord
		}
	}
	return r, nil
}

func parseIdentity(e *phEntry, f []string) bool {
	var err [4]error
	e.dev, err[0] = strconv.ParseUint(f[0], 10, 64)
	e.ino, err[1] = strconv.ParseUint(f[1], 10, 64)
	e.btime, err[2] = strconv.ParseInt(f[2], 10, 64)
	var mark int
	mark, err[3] = strconv.Atoi(f[3])
	e.mark = mark == 1
	return errors.Join(err[:]...) == nil && (mark == 0 || mark == 1)
}

func isNonce(s string) bool {
	if len(s) != nonceLen {
		return false
	}
	for _, c := range []byte(s) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
