package sandbox

import (
	"fmt"
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// keepCloses sets KeepClosesForExit's state for one test.
func keepCloses(t *testing.T, keep bool) {
	t.Helper()
	slowCloses.Lock()
	was := slowCloses.keep
	slowCloses.keep = keep
	slowCloses.Unlock()
	t.Cleanup(func() {
		slowCloses.Lock()
		slowCloses.keep = was
		slowCloses.Unlock()
	})
}

// TestCloserTakesOverInotify: after KeepClosesForExit, a closed watch's
// inotify instance stays open until Exit's child takes it over; the child
// holds it until released and then exits. Its control: without
// KeepClosesForExit the instance is closed at once and nothing is handed
// off.
func TestCloserTakesOverInotify(t *testing.T) {
	t.Run("kept", func(t *testing.T) {
		keepCloses(t, true)
		fd, err := unix.InotifyInit1(unix.IN_CLOEXEC)
		if err != nil {
			t.Fatal(err)
		}
		closeSlow(fd)
		if link, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", fd)); err != nil || link != "anon_inode:inotify" {
			t.Fatalf("kept descriptor %d: %q, %v; want it open until the hand-off", fd, link, err)
		}
		p, release := startCloser()
		if p == nil {
			t.Fatal("startCloser started nothing with a kept descriptor")
		}
		link, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/3", p.Pid))
		release()
		if err != nil || link != "anon_inode:inotify" {
			t.Errorf("the closer's descriptor 3: %q, %v; want the inotify instance", link, err)
		}
		st, err := p.Wait()
		if err != nil || !st.Success() {
			t.Errorf("closer: %v %v", st, err)
		}
		slowCloses.Lock()
		left := len(slowCloses.fds)
		slowCloses.Unlock()
		if left != 0 {
			t.Errorf("%d descriptors still kept after the hand-off", left)
		}
	})
	t.Run("control-not-kept", func(t *testing.T) {
		keepCloses(t, false)
		fd, err := unix.InotifyInit1(unix.IN_CLOEXEC)
		if err != nil {
			t.Fatal(err)
		}
		closeSlow(fd)
		if p, _ := startCloser(); p != nil {
			p.Kill()
			p.Wait()
			t.Fatal("startCloser started a child with nothing kept")
		}
	})
}

// TestCloserSharesInotify: after KeepClosesForExit, a running watch's
// inotify instance is shared with a closer started at once; closing it
// then closes this process's copy at once (the closer's is the last), keeps
// nothing for Exit, and lets the closer exit. Its control: without
// KeepClosesForExit nothing is shared and no closer starts.
func TestCloserSharesInotify(t *testing.T) {
	t.Run("kept", func(t *testing.T) {
		keepCloses(t, true)
		fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
		if err != nil {
			t.Fatal(err)
		}
		e := shareSlowClose(fd)
		if e == nil {
			t.Fatal("shareSlowClose shared nothing after KeepClosesForExit")
		}
		<-e.done
		if e.p == nil {
			t.Fatal("the closer did not start")
		}
		if link, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/3", e.p.Pid)); err != nil || link != "anon_inode:inotify" {
			t.Errorf("the closer's descriptor 3: %q, %v; want the inotify instance", link, err)
		}
		if link, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", fd)); err != nil || link != "anon_inode:inotify" {
			t.Errorf("descriptor %d while shared: %q, %v; want it still open here", fd, link, err)
		}
		closeShared(fd, e)
		if link, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", fd)); err == nil && link == "anon_inode:inotify" {
			t.Errorf("descriptor %d still open after closeShared", fd)
		}
		st, err := e.p.Wait()
		if err != nil || !st.Success() {
			t.Errorf("closer: %v %v", st, err)
		}
		slowCloses.Lock()
		left := len(slowCloses.fds)
		slowCloses.Unlock()
		if left != 0 {
			t.Errorf("%d descriptors kept for Exit, want none: the closer has it", left)
		}
	})
	t.Run("control-not-kept", func(t *testing.T) {
		keepCloses(t, false)
		fd, err := unix.InotifyInit1(unix.IN_CLOEXEC)
		if err != nil {
			t.Fatal(err)
		}
		e := shareSlowClose(fd)
		if e != nil {
			<-e.done
			if e.p != nil {
				e.p.Kill()
				e.p.Wait()
			}
			t.Fatal("shareSlowClose started a closer without KeepClosesForExit")
		}
		closeShared(fd, e)
	})
}
