//go:build linux || darwin

package sandbox

import (
	"errors"
	"io"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// isTerminal reports whether f is a terminal, without changing its mode.
func isTerminal(f *os.File) bool {
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	tty := false
	_ = rc.Control(func(fd uintptr) {
		_, err := unix.IoctlGetTermios(int(fd), termiosGet)
		tty = err == nil
	})
	return tty
}

// pumpTo copies the caller's src into w, the command's stdin pipe.
func pumpTo(w io.Writer, src *os.File) (int64, error) {
	dst, ok := w.(syscall.Conn)
	if !ok {
		return io.Copy(w, struct{ io.Reader }{src})
	}
	return pumpConns(src, dst)
}

// pumpFrom copies r, the command's stdout or stderr pipe, into the caller's
// dst. exec.Cmd hands over its pipe wrapped, but the wrapper keeps the
// file's SyscallConn.
func pumpFrom(dst *os.File, r io.Reader) (int64, error) {
	src, ok := r.(syscall.Conn)
	if !ok {
		return io.Copy(struct{ io.Writer }{dst}, r)
	}
	return pumpConns(src, dst)
}

// pumpConns copies from src to dst until src ends or dst has nobody left
// to read it, which is not an error: the command (or the caller's reader)
// is gone, as with a pipe it was handed directly. It works on the raw
// descriptors, held open for the whole copy, whether they block or not, so
// it never changes the caller's file's mode.
func pumpConns(src, dst syscall.Conn) (n int64, err error) {
	sc, err := src.SyscallConn()
	if err != nil {
		return 0, err
	}
	dc, err := dst.SyscallConn()
	if err != nil {
		return 0, err
	}
	cerr := sc.Control(func(s uintptr) {
		cerr := dc.Control(func(d uintptr) {
			n, err = pump(int(s), int(d))
		})
		if err == nil {
			err = cerr
		}
	})
	if err == nil {
		err = cerr
	}
	if errors.Is(err, errPeerGone) {
		err = nil
	}
	return n, err
}

// errPeerGone is a destination with no reader left.
var errPeerGone = errors.New("no reader left")

// pump moves bytes from descriptor s to d: spliced where the kernel can
// (one side is always the sandbox's pipe), else read and written through a
// buffer. It waits in poll, for s to be readable or d to lose its reader,
// so a copy into a command that has exited ends without reading more of
// the caller's input.
func pump(s, d int) (int64, error) {
	var (
		n      int64
		buf    []byte
		splice = canSplice
	)
	for {
		fds := []unix.PollFd{{Fd: int32(s), Events: unix.POLLIN}, {Fd: int32(d)}}
		if _, err := unix.Poll(fds, -1); err != nil {
			if err == unix.EINTR {
				continue
			}
			return n, err
		}
		if fds[1].Revents&(unix.POLLERR|unix.POLLHUP|unix.POLLNVAL) != 0 {
			return n, errPeerGone
		}
		if fds[0].Revents == 0 {
			continue
		}
		if splice {
			m, err := spliceChunk(s, d)
			switch {
			case m > 0:
				n += m
				continue
			case err == nil:
				return n, nil // the end of s
			case err == unix.EINTR:
				continue
			case err == unix.EAGAIN:
				// s has data, so d is full: wait until it drains.
				if err := waitWritable(d); err != nil {
					return n, err
				}
				continue
			case err == unix.EPIPE:
				return n, errPeerGone
			case err == unix.EINVAL:
				splice = false // no splice between these two: copy
			default:
				return n, err
			}
		}
		if buf == nil {
			buf = make([]byte, 32<<10)
		}
		m, err := unix.Read(s, buf)
		switch {
		case err == unix.EINTR || err == unix.EAGAIN:
			continue
		case err != nil:
			return n, err
		case m == 0:
			return n, nil
		}
		w, err := writeAll(d, buf[:m])
		n += int64(w)
		if err != nil {
			return n, err
		}
	}
}

// writeAll writes p to d, waiting in poll while d is full.
func writeAll(d int, p []byte) (int, error) {
	done := 0
	for done < len(p) {
		m, err := unix.Write(d, p[done:])
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
			if err := waitWritable(d); err != nil {
				return done, err
			}
			continue
		case err == unix.EPIPE:
			return done, errPeerGone
		case err != nil:
			return done, err
		}
		done += m
	}
	return done, nil
}

func waitWritable(d int) error {
	for {
		fds := []unix.PollFd{{Fd: int32(d), Events: unix.POLLOUT}}
		_, err := unix.Poll(fds, -1)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		if fds[0].Revents&(unix.POLLERR|unix.POLLHUP|unix.POLLNVAL) != 0 {
			return errPeerGone
		}
		return nil
	}
}

// writeRaw writes p to f's descriptor as it is, so that a reader gone is
// EPIPE for the caller of Write, not a SIGPIPE the Go runtime raises for
// a failed write to this process's own stdout or stderr.
func writeRaw(f *os.File, p []byte) (n int, err error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return 0, err
	}
	cerr := rc.Control(func(d uintptr) { n, err = writeAll(int(d), p) })
	if errors.Is(err, errPeerGone) {
		err = syscall.EPIPE
	}
	if err == nil {
		err = cerr
	}
	return n, err
}
