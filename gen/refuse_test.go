package gen

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRefuseTestsExist: every row of the refuse section names a Go test
// function of this repository, the one that proves the refusal.
func TestRefuseTestsExist(t *testing.T) {
	tab, err := Load("../rules")
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.Common.Refuse) == 0 {
		t.Fatal("rules/ has no refuse rows")
	}
	var src strings.Builder
	err = filepath.WalkDir("..", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && p != ".." {
			return filepath.SkipDir
		}
		if strings.HasSuffix(p, "_test.go") {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			src.Write(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range tab.Common.Refuse {
		if !strings.Contains(src.String(), "\nfunc "+e.Test+"(t *testing.T)") {
			t.Errorf("%s: refuse row %q names test %s, which no _test.go file defines", e.Pos, e.ID, e.Test)
		}
	}
}
