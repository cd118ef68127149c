package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Network.Refused for Command in mode proxy, whose proxy runs in the wrap
// helper: Command gives the helper one end of a SOCK_SEQPACKET socketpair
// (its word refused=FD), and a goroutine of the caller's reads the other
// end into Refused, one message a refusal. The helper first says hello,
// once it runs and holds its copy; the goroutine then closes the caller's
// copy of the helper's end (exec.Cmd never closes ExtraFiles), so the read
// ends when the helper exits (the helper passes the descriptor to nothing
// it starts). A Command that never starts ends the goroutine when the
// exec.Cmd is collected.

// netWrapRefused is the helper's word that names its reporting descriptor.
const netWrapRefused = "refused="

// netWrapHello is the helper's first message on it.
const netWrapHello = "sandtable-wrap-helper"

// hearRefused gives cmd's wrap helper a socket to report refusals on, and
// calls refused with each report.
func hearRefused(cmd *exec.Cmd, refused func(string)) error {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return &unavailableError{reason: "socketpair for Network.Refused: " + err.Error()}
	}
	if err := unix.SetNonblock(fds[0], true); err != nil { // the runtime's poller, so a Close ends a Read
		unix.Close(fds[0])
		unix.Close(fds[1])
		return &unavailableError{reason: "socketpair for Network.Refused: " + err.Error()}
	}
	mine := os.NewFile(uintptr(fds[0]), "refused")
	theirs := os.NewFile(uintptr(fds[1]), "refused-helper")
	word := netWrapRefused + strconv.Itoa(3+len(cmd.ExtraFiles))
	cmd.ExtraFiles = append(cmd.ExtraFiles, theirs)
	cmd.Args = slices.Insert(cmd.Args, slices.Index(cmd.Args, "--"), word)
	runtime.AddCleanup(cmd, func(f *os.File) { f.Close() }, mine)
	go readRefused(mine, theirs, refused)
	return nil
}

// readRefused calls refused with each report on mine until the helper, the
// only other holder of theirs once it said hello, has ended.
func readRefused(mine, theirs *os.File, refused func(string)) {
	defer mine.Close()
	buf := make([]byte, 4096)
	for {
		n, err := mine.Read(buf)
		if err != nil || n == 0 {
			return
		}
		if theirs != nil {
			theirs.Close() // the helper has its copy
			theirs = nil
		}
		if msg := string(buf[:n]); msg != netWrapHello {
			refused(msg)
		}
	}
}

// helperReporter is the helper's side: it takes descriptor fd out of the
// files it passes on (extra places descriptors 3, 4, ...), says hello,
// and returns what sends each refusal. A report that finds the socket full
// or the caller gone is dropped, never waited for.
func helperReporter(word string, extra []*os.File) (func(string), error) {
	fd, err := strconv.Atoi(strings.TrimPrefix(word, netWrapRefused))
	if err != nil || fd < 3 || fd-3 >= len(extra) || extra[fd-3] == nil {
		return nil, fmt.Errorf("bad argument %q (want an inherited descriptor)", word)
	}
	f := extra[fd-3]
	extra[fd-3] = nil // marked close-on-exec by inheritedFiles: bwrap does not get it
	send := func(msg string) {
		_ = unix.Sendto(int(f.Fd()), []byte(msg), unix.MSG_DONTWAIT|unix.MSG_NOSIGNAL, nil)
	}
	send(netWrapHello)
	return send, nil
}
