package gen

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/sebdah/goldie/v2"
)

// TestSemDiff diffs each case's old/ table against its new/ one, where new/
// holds only the files that changed and takes the rest from old/.
func TestSemDiff(t *testing.T) {
	g := goldie.New(t, goldie.WithFixtureDir(fixtures+"/TestSemDiff"), goldie.WithNameSuffix(".golden"))
	for _, name := range cases(t, "TestSemDiff") {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(fixtures, "TestSemDiff", name)
			oldFS := dirFS(t, filepath.Join(dir, "old"))
			newFS := dirFS(t, filepath.Join(dir, "old"))
			for p, f := range dirFS(t, filepath.Join(dir, "new")) {
				newFS[p] = f
			}
			old, err := LoadFS(oldFS, "old")
			if err != nil {
				t.Fatalf("old: %v", err)
			}
			cur, err := LoadFS(newFS, "new")
			if err != nil {
				t.Fatalf("new: %v", err)
			}
			lines := SemDiff(old, cur)
			if len(SemDiff(old, old)) != 0 || len(SemDiff(cur, cur)) != 0 {
				t.Error("a table differs from itself")
			}
			out := strings.Join(lines, "\n")
			if out != "" {
				out += "\n"
			}
			g.Assert(t, name, []byte(out))
		})
	}
}

func TestReach(t *testing.T) {
	for _, tc := range []struct {
		name     string
		old, new []Filter
		want     string
	}{
		{"added subpath", []Filter{{Kind: "subpath", Value: "/usr"}}, []Filter{{Kind: "subpath", Value: "/usr"}, {Kind: "subpath", Value: "/etc"}}, "widened"},
		{"child of a kept one", []Filter{{Kind: "subpath", Value: "/usr"}}, []Filter{{Kind: "subpath", Value: "/usr"}, {Kind: "subpath", Value: "/usr/lib"}}, "same reach"},
		{"moved down", []Filter{{Kind: "subpath", Value: "/usr"}}, []Filter{{Kind: "subpath", Value: "/usr/lib"}}, "narrowed"},
		{"literal to subpath", []Filter{{Kind: "literal", Value: "/x"}}, []Filter{{Kind: "subpath", Value: "/x"}}, "widened"},
		{"filters dropped", []Filter{{Kind: "subpath", Value: "/x"}}, nil, "widened"},
		{"variables", []Filter{{Kind: "subpath", Value: "$workspace"}}, []Filter{{Kind: "subpath", Value: "$path"}}, "widened and narrowed"},
		{"every address to outbound ip", nil, []Filter{{Kind: "remote", Form: "ip", Value: "*:*"}}, "narrowed"},
		{"localhost to any host", []Filter{{Kind: "local", Form: "ip", Value: "localhost:*"}}, []Filter{{Kind: "local", Form: "ip", Value: "*:*"}}, "widened"},
		{"service added", []Filter{{Kind: "global-name", Value: "com.apple.logd"}}, []Filter{{Kind: "global-name", Value: "com.apple.logd"}, {Kind: "global-name", Value: "com.apple.pasteboard.1"}}, "widened"},
		{"require-all narrows its part", []Filter{{Kind: "subpath", Value: "/dev"}}, []Filter{{Kind: "require-all", Of: []Filter{{Kind: "subpath", Value: "/dev"}, {Kind: "regex", Value: "^/dev/tty"}}}}, "narrowed"},
		{"socket subtree to one socket", []Filter{{Kind: "remote", Form: "unix-socket", Of: []Filter{{Kind: "subpath", Value: "/var/run"}}}}, []Filter{{Kind: "remote", Form: "unix-socket", Of: []Filter{{Kind: "literal", Value: "/var/run/syslog"}}}}, "narrowed"},
	} {
		if got := filterCoverage(tc.old, tc.new).String(); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
		if got, want := restrict.apply(filterCoverage(tc.old, tc.new)).String(), flipWord(tc.want); got != want {
			t.Errorf("%s on a deny: %s, want %s", tc.name, got, want)
		}
	}
	for _, tc := range []struct {
		old, new []string
		want     string
	}{
		{[]string{"file-read*"}, []string{"file-read*", "file-write*"}, "widened"},
		{[]string{"file-read*"}, []string{"file-read-data"}, "narrowed"},
		{[]string{"file-read-data"}, []string{"file*"}, "widened"},
		{[]string{"process-exec*", "process-fork"}, []string{"process*"}, "widened"},
	} {
		if got := coverage(tc.old, tc.new, opContains).String(); got != tc.want {
			t.Errorf("%q -> %q: %s, want %s", tc.old, tc.new, got, tc.want)
		}
	}
	for _, tc := range []struct {
		old, new []string
		forWord  string
		want     string
	}{
		{[]string{"--bind", "$path", "$path"}, []string{"--ro-bind", "$path", "$path"}, "write", "narrowed"},
		{[]string{"--ro-bind", "/opt", "/opt"}, []string{"--bind", "/opt", "/opt"}, "", "widened"},
		{[]string{"--bind", "/a/b", "/a/b"}, []string{"--bind", "/a", "/a"}, "", "widened"},
		{[]string{"--tmpfs", "$path"}, []string{"--tmpfs", "$path", "--remount-ro", "$path"}, "hidden", "narrowed"},
		{[]string{"--share-net"}, []string{"--unshare-net"}, "", "narrowed"},
		{[]string{"--ro-bind", "/proc/sys", "/proc/sys"}, []string{"--ro-bind", "/proc", "/proc"}, "", "effect unclear"},
	} {
		o := &Rule{Args: tc.old, For: tc.forWord}
		n := &Rule{Args: tc.new, For: tc.forWord}
		if got := argsReach(o, n).String(); got != tc.want {
			t.Errorf("%q -> %q: %s, want %s", tc.old, tc.new, got, tc.want)
		}
	}
}

func flipWord(s string) string {
	switch s {
	case "widened":
		return "narrowed"
	case "narrowed":
		return "widened"
	}
	return s
}

// TestSemDiffMissingPlatform diffs tables a direct caller built without a
// platform: a missing side reads as empty, never as a nil dereference.
func TestSemDiffMissingPlatform(t *testing.T) {
	full := &Table{Linux: &Platform{Name: "linux", Seccomp: []SeccompEntry{{ID: "refuse-keyctl", Syscall: "keyctl"}}}}
	empty := &Table{}
	lines := SemDiff(full, empty)
	if len(lines) == 0 || !strings.Contains(strings.Join(lines, "\n"), "refuse-keyctl") {
		t.Errorf("removing the linux platform: %q, want the seccomp entry reported", lines)
	}
	if got := SemDiff(empty, empty); len(got) != 0 {
		t.Errorf("two empty tables: %q, want no difference", got)
	}
}
