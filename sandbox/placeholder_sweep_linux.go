package sandbox

import (
	"bytes"
	"errors"
	"os"
	"path"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// The sweep of the placeholder journal (placeholders.go): what a run that
// is over left, removed where it is still what its record says and no
// live run or process holds it.

// holderWait bounds how long a sweep waits for the processes that hold a
// record's placeholders in their argv to end (bwrap, killed with its
// caller, milliseconds later) before it leaves the record for a later
// sweep.
var holderWait = 2 * time.Second

// sweepRecords bounds the records one sweep looks at.
const sweepRecords = 256

// sweepJournal removes, for each record whose run is over (its lock is
// free, and its bwrap and the sandbox's first process are gone), each
// placeholder that is still what the record says, where no live run holds
// the directory's lock; a record is dropped once nothing of it is left.
// It reports whether the journal could be opened.
func sweepJournal(dir string, create bool) bool {
	jfd, err := openJournal(dir, create)
	if err != nil {
		return false
	}
	defer unix.Close(jfd)
	lfd, err := unix.Openat(jfd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return true
	}
	f := os.NewFile(uintptr(lfd), dir)
	names, _ := f.Readdirnames(sweepRecords)
	f.Close()
	deadline := time.Now().Add(holderWait)
	for _, name := range names {
		if strings.HasPrefix(name, recordPrefix) && isNonce(strings.TrimPrefix(name, recordPrefix)) {
			sweepRecord(jfd, name, deadline)
		}
	}
	return true
}

func sweepRecord(jfd int, name string, deadline time.Time) {
	fd, err := unix.Openat(jfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || int(st.Uid) != os.Geteuid() || st.Size > recordMax {
		return // not a record of this user's
	}
	if unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB) != nil {
		return // its run is live
	}
	if unix.Fstat(fd, &st) != nil || st.Nlink == 0 {
		return // another sweep dropped it meanwhile
	}
	drop := func() {
		var now unix.Stat_t
		if unix.Fstatat(jfd, name, &now, unix.AT_SYMLINK_NOFOLLOW) == nil && now.Dev == st.Dev && now.Ino == st.Ino {
			unix.Unlinkat(jfd, name, 0)
		}
	}
	data := make([]byte, st.Size)
	n, _ := unix.Pread(fd, data, 0)
	rec, err := parseRecord(data[:max(n, 0)])
	if err != nil {
		// Cut short before any placeholder could have a name (each gets
		// one only after its record is whole and on disk), or not a
		// record: nothing to repair from it.
		drop()
		return
	}
	if !waitUnheld(rec, deadline) {
		return // left for a later sweep
	}
	done := true
	for i, e := range rec.entries {
		done = repairEntry(rec.nonce, i, e) && done
	}
	if done {
		drop()
	}
}

// repairEntry removes what is left of entry i, and reports whether
// nothing is; false when a live run holds its directory's lock.
func repairEntry(nonce string, i int, e phEntry) bool {
	dfd, err := unix.Open(path.Dir(e.path), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		// Gone, or no longer a directory one can name without a link:
		// nothing there is this record's.
		return errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.ELOOP)
	}
	defer unix.Close(dfd)
	if unix.Flock(dfd, unix.LOCK_EX|unix.LOCK_NB) != nil {
		return false
	}
	if e.temp {
		removeTemp(dfd, nonce, i, e)
	}
	if e.known {
		removeIfOurs(dfd, path.Base(e.path), e, nonce, false)
	}
	return true
}

// removeTemp removes entry i's temporary name when it is an empty regular
// file (and the record's, where its identity says so): the name holds the
// record's nonce, which nothing else makes, and a kill between its
// creation and its mark leaves it unmarked.
func removeTemp(dfd int, nonce string, i int, e phEntry) {
	if !e.known {
		e = phEntry{}
	}
	removeIfOurs(dfd, tempName(nonce, i), e, nonce, true)
}

// removeIfOurs unlinks name in dfd when it is still the placeholder e
// describes: an empty regular file with e's device, inode and birth time,
// as far as e records them, that carries the record's mark, or, on a file
// system without user extended attributes, was recorded without one. A
// temporary name (byName) needs no mark, and before its identity is
// recorded only emptiness.
func removeIfOurs(dfd int, name string, e phEntry, nonce string, byName bool) {
	var st unix.Stat_t
	if unix.Fstatat(dfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil || !sameEmpty(&st, e) {
		return
	}
	fd, err := unix.Openat(dfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	defer unix.Close(fd)
	if unix.Fstat(fd, &st) != nil || !sameEmpty(&st, e) {
		return
	}
	if e.known && e.btime != 0 && birthTime(fd) != e.btime {
		return
	}
	buf := make([]byte, nonceLen+1)
	n, err := unix.Fgetxattr(fd, placeholderMark, buf)
	switch {
	case err == nil && string(buf[:n]) == nonce:
	case err == nil || errors.Is(err, unix.ERANGE):
		return // another record's mark, or the user's attribute
	case byName:
	case errors.Is(err, unix.EOPNOTSUPP) && !e.mark:
		// No mark where the file system keeps none: the device, inode
		// and birth time alone say it is the one the record made.
	default:
		return // unmarked where a placeholder would carry its mark
	}
	unix.Unlinkat(dfd, name, 0)
}

func sameEmpty(st *unix.Stat_t, e phEntry) bool {
	return st.Mode&unix.S_IFMT == unix.S_IFREG && st.Size == 0 && (!e.known || st.Dev == e.dev && st.Ino == e.ino)
}

// birthTime is fd's birth time in ns, 0 when the file system keeps none.
func birthTime(fd int) int64 {
	var sx unix.Statx_t
	if unix.Statx(fd, "", unix.AT_EMPTY_PATH, unix.STATX_BTIME, &sx) != nil || sx.Mask&unix.STATX_BTIME == 0 {
		return 0
	}
	return sx.Btime.Sec*1e9 + int64(sx.Btime.Nsec)
}

// waitUnheld waits until no other process has the path of one of rec's
// placeholders that is still there, in a directory no live run holds
// locked, as an argument, and reports whether none has by deadline. Every
// process of a sandbox that binds a path has it in its argv: bwrap (dying
// with its killed caller, milliseconds later), bwrap's child building the
// sandbox, and the sandbox's init for as long as it lives. Removed while
// one of them lives, a placeholder's mount would detach, or one bwrap has
// yet to mount over would be made again by bwrap, unrecorded. A child of
// bwrap that outlived it before it started anything (bwrap sets its
// parent-death signal only once the sandbox is built, and one whose bwrap
// died before it let it go on waits forever) is killed: its caller was
// killed before.
func waitUnheld(rec record, deadline time.Time) bool {
	want := map[string]bool{}
	for i, e := range rec.entries {
		if !dirFree(path.Dir(e.path)) {
			continue // a live run's: repairEntry leaves it
		}
		for _, p := range []string{e.path, path.Join(path.Dir(e.path), tempName(rec.nonce, i))} {
			if _, err := os.Lstat(p); err == nil {
				want[p] = true
			}
		}
	}
	if len(want) == 0 {
		return true
	}
	for {
		held, ok := argvHolds(want)
		if ok && !held {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// dirFree reports whether no run holds dir's lock now.
func dirFree(dir string) bool {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return true
	}
	defer unix.Close(fd)
	return unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB) == nil
}

// argvHolds reports whether a process other than this one has one of
// paths as an argument, and kills each that is a bwrap child left behind
// before it started anything (orphanedSandbox); ok is false when /proc
// cannot be listed.
func argvHolds(paths map[string]bool) (held, ok bool) {
	d, err := os.Open("/proc")
	if err != nil {
		return false, false
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return false, false
	}
	self := strconv.Itoa(os.Getpid())
	for _, n := range names {
		if n == self || n[0] < '0' || n[0] > '9' {
			continue
		}
		argv, err := os.ReadFile("/proc/" + n + "/cmdline")
		if err != nil {
			continue // gone, or another user's behind hidepid
		}
		for data := argv; len(data) > 0; {
			arg, rest, _ := bytes.Cut(data, []byte{0})
			if paths[string(arg)] {
				held = true
				if pid, ok := orphanedSandbox(n, argv); ok {
					unix.Kill(pid, unix.SIGKILL)
				}
				break
			}
			data = rest
		}
	}
	return held, true
}

// orphanedSandbox reports whether process n, whose argv is argv, is a
// bwrap child left behind before it started anything: the first process
// of a sandbox (pid 1 of its own pid namespace) whose parent is no longer
// the bwrap that made it (a process with the same argv), with no child of
// its own. One whose command runs on is left to end.
func orphanedSandbox(n string, argv []byte) (int, bool) {
	status, err := os.ReadFile("/proc/" + n + "/status")
	if err != nil {
		return 0, false
	}
	var nspid []string
	ppid := ""
	for line := range strings.Lines(string(status)) {
		if v, ok := strings.CutPrefix(line, "NSpid:"); ok {
			nspid = strings.Fields(v)
		} else if v, ok := strings.CutPrefix(line, "PPid:"); ok {
			ppid = strings.TrimSpace(v)
		}
	}
	if len(nspid) < 2 || nspid[len(nspid)-1] != "1" || ppid == "" {
		return 0, false
	}
	if parent, err := os.ReadFile("/proc/" + ppid + "/cmdline"); err == nil && bytes.Equal(parent, argv) {
		return 0, false // its bwrap still runs
	}
	if kids, err := os.ReadFile("/proc/" + n + "/task/" + n + "/children"); err != nil || len(bytes.TrimSpace(kids)) > 0 {
		return 0, false
	}
	pid, err := strconv.Atoi(n)
	return pid, err == nil
}
