package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// Network.Refused for Command in mode proxy, whose proxy runs in the wrap
// helper: Command gives the helper one end of a SOCK_SEQPACKET socketpair
// (its word refused=FD), and a goroutine of the caller's reads the other
// end into Refused, one message a refusal. The goroutine ends at the
// helper's bye, which it sends as it ends (after bwrap), or at end of file:
// once the helper is gone (killed, or never started) and the caller's copy
// of its end, in ExtraFiles, is closed, by the caller after Start as the
// memfds are, or by its finalizer when the exec.Cmd is collected. (exec.Cmd
// never closes ExtraFiles, and the goroutine cannot: Start may still hold
// it.)

// wrapHelperRefused is the helper's word that names its reporting descriptor.
const wrapHelperRefused = "refused="

// wrapHelperBye is the helper's last message.
const wrapHelperBye = "sandtable-wrap-helper-end"

// hearRefused gives cmd's wrap helper a socket to report refusals on, and
// calls refused with each report.
func hearRefused(cmd *exec.Cmd, refused func(string)) error {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return &unavailableError{reason: "socketpair for Network.Refused: " + err.Error()}
	}
	mine := os.NewFile(uintptr(fds[0]), "refused")
	theirs := os.NewFile(uintptr(fds[1]), "refused-helper")
	word := wrapHelperRefused + strconv.Itoa(3+len(cmd.ExtraFiles))
	cmd.ExtraFiles = append(cmd.ExtraFiles, theirs)
	cmd.Args = slices.Insert(cmd.Args, slices.Index(cmd.Args, "--"), word)
	go readRefused(mine, refused)
	return nil
}

// readRefused calls refused with each report on mine until the helper's
// bye or end of file.
func readRefused(mine *os.File, refused func(string)) {
	defer mine.Close()
	buf := make([]byte, 4096)
	for {
		n, err := mine.Read(buf)
		if err != nil || n == 0 {
			return
		}
		msg := string(buf[:n])
		if msg == wrapHelperBye {
			return
		}
		refused(msg)
	}
}

// helperReporter is the helper's side: it takes descriptor fd out of the
// files it passes on (extra places descriptors 3, 4, ...) and returns what
// sends each refusal and what says bye. A report that
// finds the socket full or the caller gone is dropped, never waited for.
func helperReporter(word string, extra []*os.File) (send func(string), bye func(), err error) {
	fd, err := strconv.Atoi(strings.TrimPrefix(word, wrapHelperRefused))
	if err != nil || fd < 3 || fd-3 >= len(extra) || extra[fd-3] == nil {
		return nil, nil, fmt.Errorf("bad argument %q (want an inherited descriptor)", word)
	}
	f := extra[fd-3]
	extra[fd-3] = nil // marked close-on-exec by inheritedFiles: bwrap does not get it
	send = func(msg string) {
		_ = unix.Sendto(int(f.Fd()), []byte(msg), unix.MSG_DONTWAIT|unix.MSG_NOSIGNAL, nil)
	}
	return send, sync.OnceFunc(func() { send(wrapHelperBye) }), nil
}
