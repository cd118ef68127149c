package sandbox

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckPath(t *testing.T) {
	for _, tc := range []struct {
		path, want string // want "" means accepted
	}{
		{"/a/b", ""},
		{"/", ""},
		{"/a b/ü", ""},
		{"", `sandbox: hidden path "": empty`},
		{"a/b", `sandbox: hidden path "a/b": not absolute`},
		{"./a", `sandbox: hidden path "./a": not absolute`},
		{"~/a", `sandbox: hidden path "~/a": not absolute`},
		{"/a/../b", `sandbox: hidden path "/a/../b": not clean (want "/b")`},
		{"/a/./b", `sandbox: hidden path "/a/./b": not clean (want "/a/b")`},
		{"//a", `sandbox: hidden path "//a": not clean (want "/a")`},
		{"/a/", `sandbox: hidden path "/a/": not clean (want "/a")`},
		{"/a//b", `sandbox: hidden path "/a//b": not clean (want "/a/b")`},
		{"/..", `sandbox: hidden path "/..": not clean (want "/")`},
		{"/a\"b", `sandbox: hidden path "/a\"b": contains a double quote`},
		{`/a\b`, `sandbox: hidden path "/a\\b": contains a backslash`},
		{"/a\x00b", `sandbox: hidden path "/a\x00b": contains a NUL byte`},
		{"/a\nb", `sandbox: hidden path "/a\nb": contains a control character`},
		{"/a\tb", `sandbox: hidden path "/a\tb": contains a control character`},
		{"/a\x7fb", `sandbox: hidden path "/a\x7fb": contains a control character`},
		{"/a\u0085b", `sandbox: hidden path "/a\u0085b": contains a control character`},
		{"/a\xffb", `sandbox: hidden path "/a\xffb": not valid UTF-8`},
		{"/a\"/../b", `sandbox: hidden path "/a\"/../b": contains a double quote`},
	} {
		err := checkPath("hidden path", tc.path)
		if tc.want == "" {
			if err != nil {
				t.Errorf("checkPath(%q) = %v, want nil", tc.path, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("checkPath(%q) = nil, want %s", tc.path, tc.want)
			continue
		}
		if !errors.Is(err, ErrBadPath) {
			t.Errorf("checkPath(%q) = %v, not ErrBadPath", tc.path, err)
		}
		if err.Error() != tc.want {
			t.Errorf("checkPath(%q) =\n  %s\nwant\n  %s", tc.path, err, tc.want)
		}
	}
}

// TestConfigRejected covers every way a Config is refused before anything
// is built, for each field, and checks that nothing is returned with it.
func TestConfigRejected(t *testing.T) {
	dir := realTempDir(t)
	ws := mkdir(t, dir, "ws")
	file := writeFile(t, dir, "file", "x")
	missing := filepath.Join(dir, "missing")
	t.Setenv("HOME", mkdir(t, dir, "home"))
	home := filepath.Join(dir, "home")
	if err := os.Symlink(ws, filepath.Join(dir, "wslink")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/a\"b", filepath.Join(dir, "badlink")); err != nil {
		t.Fatal(err)
	}
	mkdir(t, dir, "a\"b")

	for _, tc := range []struct {
		name   string
		cfg    Config
		want   string // substring of the message
		target error  // besides ErrBadPath
	}{
		{"workspace relative", Config{Workspace: "ws"}, `workspace "ws": not absolute`, nil},
		{"workspace unclean", Config{Workspace: ws + "/"}, `workspace "` + ws + `/": not clean`, nil},
		{"workspace quote", Config{Workspace: dir + `/a"b`}, "contains a double quote", nil},
		{"workspace missing", Config{Workspace: missing}, `workspace "` + missing + `": does not exist`, fs.ErrNotExist},
		{"workspace file", Config{Workspace: file}, "not a directory", nil},
		{"workspace root", Config{Workspace: "/"}, "the root cannot be the workspace", nil},
		{"hidden relative", Config{Workspace: ws, Hidden: []string{"x"}}, `hidden path "x": not absolute`, nil},
		{"hidden unclean", Config{Workspace: ws, Hidden: []string{"/a/../b"}}, `sandbox: hidden path "/a/../b": not clean (want "/b")`, nil},
		{"hidden is workspace", Config{Workspace: ws, Hidden: []string{ws}}, "is the workspace", nil},
		{"hidden resolves to workspace", Config{Workspace: ws, Hidden: []string{dir + "/wslink"}}, "resolves to the workspace", nil},
		{"hidden root", Config{Workspace: ws, Hidden: []string{"/"}}, "the root cannot be hidden", nil},
		{"hidden link to a bad name", Config{Workspace: ws, Hidden: []string{dir + "/badlink"}}, `resolves to "/a\"b": contains a double quote`, nil},
		{"read missing", Config{Workspace: ws, Read: []string{missing}}, `read path "` + missing + `": does not exist`, fs.ErrNotExist},
		{"read control", Config{Workspace: ws, Read: []string{"/a\x01"}}, "control character", nil},
		{"write missing", Config{Workspace: ws, Write: []string{missing}}, `write path "` + missing + `": does not exist`, fs.ErrNotExist},
		{"write root", Config{Workspace: ws, Write: []string{"/"}}, "the root cannot be writable", nil},
		{"write backslash", Config{Workspace: ws, Write: []string{`/a\b`}}, "backslash", nil},
		{"reveal unknown", Config{Workspace: ws, Reveal: []string{home + "/.bashrc"}}, "not in the default hidden set (accepted: " + home + "/.ssh, " + home + "/.aws", nil},
		{"reveal relative", Config{Workspace: ws, Reveal: []string{".ssh"}}, "not absolute", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, goos := range []string{"linux", "darwin"} {
				w, err := PrefixFor(goos, tc.cfg)
				if err == nil {
					t.Fatalf("%s: accepted: %+v", goos, w)
				}
				if !errors.Is(err, ErrBadPath) {
					t.Errorf("%s: %v: not ErrBadPath", goos, err)
				}
				if tc.target != nil && !errors.Is(err, tc.target) {
					t.Errorf("%s: %v: not %v", goos, err, tc.target)
				}
				if !strings.Contains(err.Error(), tc.want) {
					t.Errorf("%s: %v\nwant it to contain %s", goos, err, tc.want)
				}
				if w.Program != "" || w.Args != nil {
					t.Errorf("%s: a rejected config returned a wrapper: %+v", goos, w)
				}
			}
			// Command must refuse it too, whatever the policy.
			for _, pol := range []Policy{Required, Off} {
				cfg := tc.cfg
				cfg.Policy = pol
				if cmd, err := Command(t.Context(), cfg, "true"); err == nil || cmd != nil {
					t.Errorf("Command under %v: cmd %v, err %v", pol, cmd, err)
				}
			}
		})
	}
}

func TestBadPolicyValueRejected(t *testing.T) {
	_, err := PrefixFor("linux", Config{Workspace: realTempDir(t), Policy: Policy(7)})
	if !errors.Is(err, ErrBadPolicy) {
		t.Fatalf("got %v, want ErrBadPolicy", err)
	}
}

// Helpers shared by the tests of this package.
