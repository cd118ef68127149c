package sandbox

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"testing"
)

func TestStatusLines(t *testing.T) {
	for _, tc := range []struct {
		in       string
		child    bool
		code     int
		hasCode  bool
		complete bool
	}{
		{in: "", complete: false},
		{in: `{ "child-pid": 5741, "mnt-namespace": 4026532178 }` + "\n", child: true, complete: true},
		{in: `{ "child-pid": 5741 }` + "\n" + `{ "exit-code": 7 }` + "\n", child: true, code: 7, hasCode: true, complete: true},
		{in: `{ "child-pid": 1 }` + "\n" + `{"exit-code":137}`, child: true, code: 137, hasCode: true, complete: true},
		{in: `{ "child-pid": 1 }` + "\n" + `{ "exit-code": }`, child: true, complete: true},
		{in: `{ "child-p`, complete: false},
	} {
		s := status{buf: []byte(tc.in)}
		if got := s.childPID(); got != tc.child {
			t.Errorf("%q: childPID %v", tc.in, got)
		}
		code, ok := s.exitCode()
		if ok != tc.hasCode || code != tc.code {
			t.Errorf("%q: exitCode %d, %v", tc.in, code, ok)
		}
	}
}

func TestStatusRead(t *testing.T) {
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	long := `{ "child-pid": 9, "x": "` + strings.Repeat("y", 600) + `" }` + "\n"
	go func() {
		pw.WriteString(long[:10])
		pw.WriteString(long[10:] + `{ "exit-code": 3 }` + "\n")
		pw.Close()
	}()
	var s status
	if !s.readLine(pr) || !s.childPID() {
		t.Fatalf("readLine: %q", s.buf)
	}
	s.readAll(pr)
	if code, ok := s.exitCode(); !ok || code != 3 {
		t.Errorf("exitCode %d, %v from %q", code, ok, s.buf)
	}
	if s.read(pr) {
		t.Error("read after the end")
	}
}

func TestTailHoldsUntilRelease(t *testing.T) {
	var out bytes.Buffer
	tl := &tail{w: &out, hold: true}
	tl.Write([]byte("bwrap: "))
	if out.Len() != 0 {
		t.Fatalf("passed on while holding: %q", out.String())
	}
	tl.release()
	if n, err := tl.ReadFrom(strings.NewReader("after\n")); n != 6 || err != nil {
		t.Errorf("ReadFrom: %d, %v", n, err)
	}
	if out.String() != "bwrap: after\n" || tl.String() != "bwrap: after\n" {
		t.Errorf("out %q, tail %q", out.String(), tl.String())
	}
	big := bytes.Repeat([]byte("z"), 3*tailMax)
	tl.Write(big)
	tl.Write([]byte("end"))
	if b := tl.bytes(); len(b) != tailMax || !bytes.HasSuffix(b, []byte("zend")) {
		t.Errorf("tail of %d bytes, ends %q", len(b), b[len(b)-4:])
	}
	// Without a writer it only keeps the tail.
	nw := &tail{hold: true}
	if n, err := nw.Write([]byte("x")); n != 1 || err != nil || nw.String() != "x" {
		t.Errorf("nil writer: %d %v %q", n, err, nw.String())
	}
}

func TestSameWriter(t *testing.T) {
	var a, b bytes.Buffer
	if !sameWriter(&a, &a) || sameWriter(&a, &b) || sameWriter(nil, nil) || sameWriter(&a, nil) {
		t.Error("sameWriter disagrees with ==")
	}
	w := sliceWriter{}
	if sameWriter(w, w) {
		t.Error("uncomparable writers compared equal")
	}
}

// sliceWriter is an uncomparable io.Writer: == on two of them panics.
type sliceWriter []byte

func (sliceWriter) Write(p []byte) (int, error) { return len(p), nil }

func TestExecFailure(t *testing.T) {
	line, ok := execFailure("noise\nbwrap: execvp nosuch: No such file or directory\n")
	if !ok || line != "execvp nosuch: No such file or directory" {
		t.Errorf("execFailure: %q %v", line, ok)
	}
	if _, ok := execFailure("bwrap: Can't mkdir parents for /x: Read-only file system\n"); ok {
		t.Error("a setup failure read as an exec failure")
	}
	if _, ok := execFailure(""); ok {
		t.Error("empty stderr read as an exec failure")
	}
}

func TestCommandErrorWraps(t *testing.T) {
	e := &commandError{name: "x y", reason: "execvp x y: Permission denied", err: fs.ErrPermission}
	if !errors.Is(e, fs.ErrPermission) || errors.Is(e, exec.ErrNotFound) || e.Error() != `sandbox: run "x y": execvp x y: Permission denied` {
		t.Errorf("%v", e)
	}
}

func TestNewCmdOff(t *testing.T) {
	dir := realTempDir(t)
	t.Setenv("HOME", mkdir(t, dir, "home"))
	ws := mkdir(t, dir, "ws")
	c, err := NewCmd(t.Context(), Config{Workspace: ws, Policy: Off}, "sh", "-c", "echo $0", "off")
	if err != nil {
		t.Fatal(err)
	}
	if c.checked != nil || c.Path == "" || c.Dir != ws {
		t.Fatalf("Off: fold %v path %q dir %q", c.checked, c.Path, c.Dir)
	}
	out, err := c.Output()
	if err != nil || string(out) != "off\n" {
		t.Errorf("Off output %q, %v", out, err)
	}
}
