package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sandtable/sandtable/gen"
	"github.com/sebdah/goldie/v2"
)

// copyTables copies the *.yaml files of each dir, later ones winning, into
// a new module root's rules/.
func copyTables(t *testing.T, dirs ...string) string {
	t.Helper()
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "rules"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, dir := range dirs {
		files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no tables in %s: %v", dir, err)
		}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(root, "rules", filepath.Base(f)), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return root
}

// TestDiffFlag runs -diff on gen's TestSemDiff case "condition", copied
// into the module's testdata/cmd/genrules/TestDiffFlag (old/, and new/
// with the files that changed).
func TestDiffFlag(t *testing.T) {
	const cases = "../../testdata/cmd/genrules/TestDiffFlag"
	old := filepath.Join(cases, "old")
	root := copyTables(t, old, filepath.Join(cases, "new"))
	var stdout, stderr bytes.Buffer
	if code := run([]string{"-diff", old, "-root", root}, &stdout, &stderr); code != 1 {
		t.Errorf("exit %d with changes, want 1; stderr: %s", code, &stderr)
	}
	// The command adds nothing to gen.SemDiff's lines.
	oldTable, err := gen.Load(old)
	if err != nil {
		t.Fatal(err)
	}
	newTable, err := gen.Load(filepath.Join(root, "rules"))
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Join(gen.SemDiff(oldTable, newTable), "\n") + "\n"; stdout.String() != want {
		t.Errorf("-diff printed\n%s\nwant gen.SemDiff's lines\n%s", &stdout, want)
	}
	goldie.New(t, goldie.WithFixtureDir(cases), goldie.WithNameSuffix(".golden")).Assert(t, "condition", stdout.Bytes())

	stdout.Reset()
	if code := run([]string{"-diff", filepath.Join(root, "rules"), "-root", root}, &stdout, &stderr); code != 0 || stdout.Len() != 0 {
		t.Errorf("a table against itself: exit %d, output %q; want 0 and nothing", code, &stdout)
	}
	if _, err := os.Stat(filepath.Join(root, "sandbox")); err == nil {
		t.Error("-diff wrote the generated files")
	}

	stderr.Reset()
	if code := run([]string{"-diff", t.TempDir(), "-root", root}, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "genrules: diff: old table") {
		t.Errorf("an empty old dir: exit %d, stderr %q; want 2 and the load error", code, &stderr)
	}
	if code := run([]string{"-check", "-diff", old, "-root", root}, &stdout, &stderr); code != 2 {
		t.Errorf("-check with -diff: exit %d, want 2", code)
	}
}
