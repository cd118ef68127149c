package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// tmpfsAt mounts a tmpfs with opts (size=, nr_inodes=, ro) on a fresh
// directory for the rest of the test, as root, and unmounts it after.
func tmpfsAt(t *testing.T, opts string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		if os.Getenv("SANDTABLE_REQUIRE_BWRAP") == "1" {
			t.Fatal("a small file system for the caches is a tmpfs, which takes root to mount (SANDTABLE_REQUIRE_BWRAP=1 makes this a failure)")
		}
		t.Skip("a small file system for the caches is a tmpfs, which takes root to mount")
	}
	dir := filepath.Join(hostDir(t), "fs")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	flags := uintptr(syscall.MS_NOSUID | syscall.MS_NODEV)
	if o, ok := strings.CutSuffix(opts, ",ro"); ok {
		opts, flags = o, flags|syscall.MS_RDONLY
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", flags, opts); err != nil {
		t.Fatalf("mount tmpfs %s on %s: %v", opts, dir, err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, 0); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
			_ = syscall.Unmount(dir, syscall.MNT_DETACH)
		}
	})
	return dir
}

// fill writes to a file under dir until its file system has no room.
func fill(t *testing.T, dir string) {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, "fill"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	for {
		if _, err := f.Write(buf); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			return
		}
	}
}

// TestRunCacheDiskFull: where the tool caches' file system is full, or
// out of inodes, run refuses before anything is spawned, naming the file
// system and the row, with the status of a sandbox that cannot be set up
// here (125), where the base made go build say "package fmt is not in
// std" or ran with caches it could not write; where the cache directory
// cannot be made (a read-only file system), 125 too, naming why (the
// base: 2, kept for bad flags). A command that fills the file system
// itself is followed by a line saying so.
func TestRunCacheDiskFull(t *testing.T) {
	requireBwrap(t)
	e := newEnv(t)
	spawned := filepath.Join(e.ws, "spawned")
	run := func(t *testing.T, xdg string, args ...string) result {
		t.Helper()
		os.Remove(spawned)
		e.vars = []string{"XDG_CACHE_HOME=" + xdg}
		return e.run(t, "", append([]string{"run", "--"}, args...)...)
	}
	refused := func(t *testing.T, r result, want ...string) {
		t.Helper()
		if r.code != exitSetup || r.stdout != "" || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("exit %d, stdout %q, stderr %q; want 125 and one line", r.code, r.stdout, r.stderr)
		}
		for _, w := range want {
			if !strings.Contains(r.stderr, w) {
				t.Errorf("stderr %q; want %q in it", r.stderr, w)
			}
		}
		if _, err := os.Stat(spawned); err == nil {
			t.Error("the command was spawned")
		}
	}
	t.Run("full", func(t *testing.T) {
		fs := tmpfsAt(t, "size=1m,nr_inodes=4096")
		fill(t, fs)
		refused(t, run(t, fs, "touch", spawned), "the tool caches' file system ("+fs, "--no-cache", "(refuse: no-full-cache)")
	})
	t.Run("no inodes", func(t *testing.T) {
		fs := tmpfsAt(t, "size=8m,nr_inodes=64")
		refused(t, run(t, fs, "touch", spawned), "free inodes, fewer than the 1024", "(refuse: no-inodeless-cache)")
	})
	t.Run("read-only", func(t *testing.T) {
		fs := tmpfsAt(t, "size=8m,ro")
		refused(t, run(t, fs, "touch", spawned), `sandbox: cache directory "`+fs+`/sandtable": cannot be created: mkdir `+fs+"/sandtable: read-only file system", "--no-cache")
	})
	t.Run("go build", func(t *testing.T) {
		if _, err := exec.LookPath("go"); err != nil {
			t.Skip("no go on PATH")
		}
		fs := tmpfsAt(t, "size=8m,nr_inodes=4096")
		if r := run(t, fs, "true"); r.code != 0 {
			t.Fatalf("a run with room: exit %d, stderr %q", r.code, r.stderr)
		}
		fill(t, fs) // the caches made, then the disk filled
		for name, body := range map[string]string{"go.mod": "module hello\n\ngo 1.22\n", "main.go": "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hi\") }\n"} {
			if err := os.WriteFile(filepath.Join(e.ws, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		r := run(t, fs, "go", "build", "-o", os.DevNull, ".")
		refused(t, r, "has 0 bytes free", "(refuse: no-full-cache)")
		if strings.Contains(r.stderr, "main.go:") {
			t.Errorf("stderr %q: go's words for a cache it cannot write (main.go:3:8: package fmt is not in std)", r.stderr)
		}
	})
	t.Run("filled by the command", func(t *testing.T) {
		fs := tmpfsAt(t, "size=4m,nr_inodes=4096")
		r := run(t, fs, "sh", "-c", `cat /dev/zero > "$XDG_CACHE_HOME/fill"; exit 3`)
		want := "sandtable: the tool caches' file system (" + fs + "/sandtable/caches) is full: 0 bytes"
		if r.code != 3 || !strings.HasPrefix(lastLine(r.stderr), want) {
			t.Errorf("exit %d, stderr %q; want 3 and a last line starting %q", r.code, r.stderr, want)
		}
	})
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}
