package sandbox

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// TestStdioKinds classifies one descriptor of each kind and looks it up in
// the table's stdio section as Start does.
func TestStdioKinds(t *testing.T) {
	dir := t.TempDir()
	open := func(p string, flag int) *os.File {
		f, err := os.OpenFile(p, flag, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	sock := os.NewFile(uintptr(fds[0]), "sock")
	defer sock.Close()
	defer unix.Close(fds[1])
	ptmx := open("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY)
	if err := unix.IoctlSetPointerInt(int(ptmx.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(ptmx.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	tty := open("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY)
	fifo := dir + "/fifo"
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		f    *os.File
		want stdioKind
		pass stdioPass
	}{
		{tty, stdioKindTerminal, stdioPassAsIs},
		{open(os.DevNull, os.O_RDWR), stdioKindNull, stdioPassAsIs},
		{r, stdioKindPipe, stdioPassCopy},
		{w, stdioKindPipe, stdioPassCopy},
		{open(fifo, os.O_RDWR), stdioKindPipe, stdioPassCopy},
		{sock, stdioKindSocket, stdioPassCopy},
		{open(dir+"/file", os.O_RDWR|os.O_CREATE), stdioKindFile, stdioPassCopy},
		{open("/dev/zero", os.O_RDWR), stdioKindDevice, stdioPassCopy},
		{open(dir, os.O_RDONLY), stdioKindDir, stdioPassNone},
	} {
		kind, err := stdioKindOf(c.f)
		if err != nil || kind != c.want {
			t.Errorf("%s: kind %d, %v, want %d", c.f.Name(), kind, err, c.want)
		}
		for stream := range 3 {
			pass, rule, err := stdioDecide(stream, c.f)
			if err != nil || pass != c.pass || rule == "" {
				t.Errorf("%s on stream %d: %d by %q, %v, want %d", c.f.Name(), stream, pass, rule, err, c.pass)
			}
		}
	}
}

// TestNewCmdStdinPipe: a caller's pipe as NewCmd's Stdin reaches the
// command as another pipe, its content whole; the same pipe behind Stdout
// and Stderr is one copy, so their order holds.
func TestNewCmdStdinPipe(t *testing.T) {
	requireBwrap(t)
	_, ws := spawnEnv(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var st syscall.Stat_t
	if err := syscall.Fstat(int(r.Fd()), &st); err != nil {
		t.Fatal(err)
	}
	in := strings.Repeat("x", 200<<10)
	go func() { w.WriteString(in); w.Close() }()
	or, ow, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer or.Close()
	c := newCmd(t, Config{Workspace: ws}, "sh", "-c", "stat -L -c %i /proc/self/fd/0; wc -c; echo one >&2; echo two; echo three >&2")
	c.Stdin, c.Stdout, c.Stderr = r, ow, ow
	err = c.Run()
	ow.Close()
	var out bytes.Buffer
	out.ReadFrom(or)
	want := strconv.Itoa(len(in)) + "\none\ntwo\nthree\n"
	lines := strings.SplitN(out.String(), "\n", 2)
	if err != nil || len(lines) != 2 || lines[1] != want {
		t.Fatalf("run: %v, output %q, want the inode then %q", err, out.String(), want)
	}
	if lines[0] == strconv.FormatUint(st.Ino, 10) {
		t.Errorf("the command's stdin is the caller's pipe (inode %s)", lines[0])
	}
}

// TestNewCmdStdinPipeRetry: a bwrap that rejects an option on the first
// attempt gets the caller's stdin pipe on the retry, none of it consumed
// by the rejected one, and no --version run first.
func TestNewCmdStdinPipeRetry(t *testing.T) {
	real := realBwrap(t)
	base, ws := spawnEnv(t)
	count := fakeBwrap(t, base, `for a in "$@"; do
  case "$a" in
    --disable-userns) echo "bwrap: Unknown option --disable-userns" >&2; exit 1;;
    --) break;;
  esac
done
exec '`+real+`' "$@"
`)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	w.WriteString("all of it\n")
	w.Close()
	c := newCmd(t, Config{Workspace: ws}, "cat")
	c.Stdin = r
	out, err := c.Output()
	if err != nil || string(out) != "all of it\n" || count() != 2 {
		t.Errorf("pipe stdin: %q, %v, %d executions (want the rejected attempt and the spawn)", out, err, count())
	}
}

// TestNewCmdOwnPipes: the pipe methods' pipes are the command's own and
// reach it as they are.
func TestNewCmdOwnPipes(t *testing.T) {
	requireBwrap(t)
	_, ws := spawnEnv(t)
	c := newCmd(t, Config{Workspace: ws}, "cat")
	in, err := c.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Stdin.(*os.File); !ok {
		t.Errorf("StdinPipe's pipe was replaced by %T", c.Stdin)
	}
	in.Write([]byte("hello\n"))
	in.Close()
	var b bytes.Buffer
	b.ReadFrom(out)
	if err := c.Wait(); err != nil || b.String() != "hello\n" {
		t.Errorf("cat through the pipe methods: %q, %v", b.String(), err)
	}
}
