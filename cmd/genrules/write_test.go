package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// generated runs genrules over root and returns its outputs' contents.
func generated(t *testing.T, root string) map[string]string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := run([]string{"-root", root}, &stdout, &stderr); code != 0 {
		t.Fatalf("genrules exited %d: %s", code, stderr.String())
	}
	return readOutputs(t, root)
}

func readOutputs(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, p := range []string{"sandbox/zz_generated.go", "docs/POLICY.md"} {
		data, err := os.ReadFile(filepath.Join(root, p))
		if err != nil {
			t.Fatal(err)
		}
		out[p] = string(data)
	}
	return out
}

// TestBadTableWritesNothing: a table with an error leaves the previous
// outputs byte for byte, and no temporary file behind.
func TestBadTableWritesNothing(t *testing.T) {
	root := copyTables(t, "../../rules")
	before := generated(t, root)
	linux := filepath.Join(root, "rules", "linux.yaml")
	src, err := os.ReadFile(linux)
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(src), "when: network", "when: networking", 1)
	if err := os.WriteFile(linux, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"-root", root}, &stdout, &stderr); code != 1 {
		t.Fatalf("bad table: exit %d, want 1", code)
	}
	if want := `rules/linux.yaml:`; !strings.Contains(stderr.String(), want) || !strings.Contains(stderr.String(), "nothing written") {
		t.Errorf("stderr does not name the file and say nothing was written:\n%s", stderr.String())
	}
	if after := readOutputs(t, root); after["sandbox/zz_generated.go"] != before["sandbox/zz_generated.go"] || after["docs/POLICY.md"] != before["docs/POLICY.md"] {
		t.Error("a failed generation changed an output")
	}
	assertNoTemp(t, root)
}

// TestCheckReportsDrift: -check exits 1 with a diff when an output is
// stale, writes nothing, and exits 0 once it is fresh.
func TestCheckReportsDrift(t *testing.T) {
	root := copyTables(t, "../../rules")
	fresh := generated(t, root)
	stale := strings.Replace(fresh["sandbox/zz_generated.go"], `"--share-net"`, `"--share-nett"`, 1)
	path := filepath.Join(root, "sandbox/zz_generated.go")
	if err := os.WriteFile(path, []byte(stale), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"-root", root, "-check"}, &stdout, &stderr); code != 1 {
		t.Fatalf("stale output: -check exit %d, want 1", code)
	}
	removed, added := false, false
	for _, line := range strings.Split(stdout.String(), "\n") {
		removed = removed || strings.HasPrefix(line, "@@ -") && strings.Contains(line, `"--share-nett"`)
		added = added || strings.HasPrefix(line, "@@ +") && strings.Contains(line, `"--share-net"`)
	}
	if !removed || !added || !strings.Contains(stderr.String(), "stale; run go generate ./sandbox") {
		t.Errorf("-check output lacks the diff or the hint:\n%s\n%s", stdout.String(), stderr.String())
	}
	if data, _ := os.ReadFile(path); string(data) != stale {
		t.Error("-check wrote the output")
	}
	generated(t, root)
	stdout.Reset()
	if code := run([]string{"-root", root, "-check"}, &stdout, &stderr); code != 0 {
		t.Fatalf("fresh output: -check exit %d, want 0: %s", code, stdout.String())
	}
}

// TestWriteAtomicFailure: when the rename cannot happen, what was at the
// path is left as it was and the temporary file is removed.
func TestWriteAtomicFailure(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "out")
	if err := os.MkdirAll(filepath.Join(target, "keep"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := writeAtomic(target, []byte("new")); err == nil {
		t.Fatal("renaming a file over a non-empty directory succeeded")
	}
	if fi, err := os.Stat(filepath.Join(target, "keep")); err != nil || !fi.IsDir() {
		t.Errorf("the directory at the path was disturbed: %v", err)
	}
	assertNoTemp(t, dir)
}

func assertNoTemp(t *testing.T, root string) {
	t.Helper()
	_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), ".genrules-") {
			t.Errorf("temporary file left behind: %s", p)
		}
		return nil
	})
}
