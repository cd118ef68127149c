package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestPlaceholderJournalHostile: a sweep removes only an empty regular
// file with the device, inode and birth time its record gives, carrying
// the record's mark, whose run is over and whose directory no live run
// holds; a record that is corrupt, another user's, or names a file the
// user made, filled, marked otherwise or put a link in place of, removes
// nothing (a journal is sandtable's own, but what it says is checked
// against the file all the same). The control: the same record for a file
// the run made ("ours") removes it, and each case's file is checked to be
// one the sweep could reach.
func TestPlaceholderJournalHostile(t *testing.T) {
	base := realTempDir(t)
	probe := filepath.Join(base, "probe")
	if err := os.WriteFile(probe, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := unix.Setxattr(probe, placeholderMark, []byte("x"), 0); err != nil {
		t.Skipf("no user extended attributes on %s: %v", base, err)
	}
	const nonce = "0123456789abcdef0123456789abcdef"
	type file struct {
		content string
		mark    string // the xattr's value, "" for none
	}
	for _, c := range []struct {
		name    string
		f       file
		mutate  func(e *phEntry, p string) // the record's lies; nil: the truth
		setup   func(t *testing.T, p, rec string) func()
		record  string // the record's whole text, when not built from the file
		removed bool
		kept    bool // the record is left for a later sweep
	}{
		{name: "ours", f: file{mark: nonce}, removed: true},
		{name: "user-empty-file-claimed-unmarked", f: file{}, mutate: func(e *phEntry, _ string) { e.mark = false }},
		{name: "user-empty-file-claimed-marked", f: file{}, mutate: func(e *phEntry, _ string) { e.mark = true }},
		{name: "marked-by-another-record", f: file{mark: strings.Repeat("f", nonceLen)}},
		{name: "filled-by-user", f: file{content: "{}\n", mark: nonce}},
		{name: "other-inode", f: file{mark: nonce}, mutate: func(e *phEntry, _ string) { e.ino++ }},
		{name: "other-birth", f: file{mark: nonce}, mutate: func(e *phEntry, _ string) { e.btime++ }},
		{name: "link-in-its-place", f: file{mark: nonce}, setup: func(t *testing.T, p, _ string) func() {
			// The record's file moved aside, a link to it at its name.
			if err := os.Rename(p, p+".real"); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(filepath.Base(p)+".real", p); err != nil {
				t.Fatal(err)
			}
			return func() {
				if _, err := os.Stat(p + ".real"); err != nil {
					t.Errorf("the link's target was removed: %v", err)
				}
			}
		}},
		{name: "corrupt-record", f: file{mark: nonce}, record: "sandtable placeholders 1 " + nonce + "\nrm -rf /\n"},
		{name: "live-run-holds-the-record", f: file{mark: nonce}, kept: true, setup: func(t *testing.T, _, rec string) func() {
			fd, err := unix.Open(rec, unix.O_RDONLY|unix.O_CLOEXEC, 0)
			if err != nil {
				t.Fatal(err)
			}
			if err := unix.Flock(fd, unix.LOCK_EX); err != nil {
				t.Fatal(err)
			}
			return func() { unix.Close(fd) }
		}},
		{name: "live-run-holds-the-directory", f: file{mark: nonce}, kept: true, setup: func(t *testing.T, p, _ string) func() {
			fd, err := unix.Open(filepath.Dir(p), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
			if err != nil {
				t.Fatal(err)
			}
			if err := unix.Flock(fd, unix.LOCK_SH); err != nil {
				t.Fatal(err)
			}
			return func() { unix.Close(fd) }
		}},
		{name: "another-users-record", f: file{mark: nonce}, kept: true, setup: func(t *testing.T, _, rec string) func() {
			if os.Geteuid() != 0 {
				t.Skip("needs root to give the record away")
			}
			if err := os.Chown(rec, 1001, 1001); err != nil {
				t.Fatal(err)
			}
			return func() {}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := mkdir(t, realTempDir(t), "ws")
			j := mkdir(t, filepath.Dir(dir), "journal")
			os.Chmod(j, 0o700)
			p := filepath.Join(dir, ".vscode")
			if err := os.WriteFile(p, []byte(c.f.content), 0o444); err != nil {
				t.Fatal(err)
			}
			if c.f.mark != "" {
				os.Chmod(p, 0o644)
				if err := unix.Setxattr(p, placeholderMark, []byte(c.f.mark), 0); err != nil {
					t.Fatal(err)
				}
				os.Chmod(p, 0o444)
			}
			e := entryOf(t, p)
			if c.mutate != nil {
				c.mutate(&e, p)
			}
			text := c.record
			if text == "" {
				text = string(recordHeader(nonce)) + string(entryLine(0, e))
			}
			rec := filepath.Join(j, recordPrefix+nonce)
			if err := os.WriteFile(rec, []byte(text), 0o600); err != nil {
				t.Fatal(err)
			}
			check := func() {}
			if c.setup != nil {
				check = c.setup(t, p, rec)
			}
			sweepJournal(j, false)
			check()
			_, err := os.Lstat(p)
			switch {
			case c.removed && err == nil:
				t.Errorf("the record's own placeholder %s was not removed", p)
			case !c.removed && err != nil:
				t.Errorf("%s was removed: %v", p, err)
			}
			if data, err := os.ReadFile(p); err == nil && !c.removed && c.setup == nil && string(data) != c.f.content {
				t.Errorf("%s holds %q, want %q", p, data, c.f.content)
			}
			_, err = os.Lstat(rec)
			switch {
			case c.kept && err != nil:
				t.Errorf("the record was dropped (%v): its run may still be live", err)
			case !c.kept && err == nil:
				t.Errorf("the record was left, though nothing of it can be repaired")
			}
		})
	}
}

// entryOf is p's identity as a record holds it, its mark included.
func entryOf(t *testing.T, p string) phEntry {
	t.Helper()
	fd, err := unix.Open(p, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		t.Fatal(err)
	}
	_, err = unix.Fgetxattr(fd, placeholderMark, make([]byte, 64))
	return phEntry{path: p, dev: st.Dev, ino: st.Ino, btime: birthTime(fd), mark: err == nil, known: true}
}

// TestPlaceholderSweepWaitsForHolders: a record whose caller is gone,
// while a process still has its placeholder's path as an argument (its
// bwrap, dying with the caller; a child of bwrap that outlived it; the
// sandbox's init), is left until that process is gone: removing the
// placeholder would detach the mount of a sandbox that still runs, or let
// bwrap make it again. Control: once the process is gone, the same sweep
// removes it.
func TestPlaceholderSweepWaitsForHolders(t *testing.T) {
	dir := realTempDir(t)
	j := mkdir(t, dir, "journal")
	os.Chmod(j, 0o700)
	p := filepath.Join(dir, ".mcp.json")
	const nonce = "00000000000000000000000000000001"
	if err := os.WriteFile(p, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := unix.Setxattr(p, placeholderMark, []byte(nonce), 0); err != nil {
		t.Skipf("no user extended attributes: %v", err)
	}
	holder := exec.Command("sh", "-c", "sleep 30", "sh", p)
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	defer holder.Process.Kill()
	rec := append(recordHeader(nonce), entryLine(0, entryOf(t, p))...)
	if err := os.WriteFile(filepath.Join(j, recordPrefix+nonce), rec, 0o600); err != nil {
		t.Fatal(err)
	}
	defer func(w time.Duration) { holderWait = w }(holderWait)
	holderWait = 100 * time.Millisecond
	// The holder's argv is its own once exec has run.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if held, _ := argvHolds(map[string]bool{p: true}); held || time.Now().After(deadline) {
			break
		}
	}
	sweepJournal(j, false)
	if _, err := os.Lstat(p); err != nil {
		t.Fatalf("removed while a process (pid %d) has it in its argv: %v", holder.Process.Pid, err)
	}
	holder.Process.Kill()
	holder.Wait()
	sweepJournal(j, false)
	if _, err := os.Lstat(p); err == nil {
		t.Errorf("control: left once the process is gone")
	}
}
