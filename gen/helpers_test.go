package gen

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"
)

// fixtures is this package's folder of the module's testdata: each
// test's fixture tables and golden files, one folder per test.
const fixtures = "../testdata/gen"

// cases lists the fixture directories under fixtures/NAME.
func cases(t *testing.T, name string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(fixtures, name))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	if len(out) == 0 {
		t.Fatalf("no fixtures under %s/%s", fixtures, name)
	}
	return out
}

// dirFS loads a fixture directory into memory, so a case can overlay files.
func dirFS(t *testing.T, dir string) fstest.MapFS {
	t.Helper()
	m := fstest.MapFS{}
	err := fs.WalkDir(os.DirFS(dir), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(filepath.Join(dir, p))
		m[p] = &fstest.MapFile{Data: data}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}
