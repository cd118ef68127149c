// Command genrules turns the rule table under rules/ into package sandbox's
// builders and the reviewers' docs. `go generate ./...` runs it; -check
// reports drift without writing; -diff OLD_DIR summarizes a change to the
// table for review.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/sandtable/sandtable/gen"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("genrules", flag.ContinueOnError)
	fs.SetOutput(stderr)
	check := fs.Bool("check", false, "report stale outputs with a diff and exit 1, writing nothing")
	root := fs.String("root", "", "the module root (default: the nearest directory above with go.mod)")
	diff := fs.String("diff", "", "print the semantic changes from the rule table in `OLD_DIR` to rules/, writing nothing;\nexit 1 if there are any, as diff(1) does")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: genrules [-check | -diff OLD_DIR] [-root DIR]\n\nRegenerates sandbox/zz_generated.go, sandbox/zz_vocab.go and docs/POLICY.md from\nrules/*.yaml and the generator's vocabulary.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "genrules: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	dir := *root
	if dir == "" {
		var err error
		if dir, err = moduleRoot(); err != nil {
			fmt.Fprintf(stderr, "genrules: %v\n", err)
			return 2
		}
	}
	if *diff != "" {
		if *check {
			fmt.Fprintln(stderr, "genrules: -check and -diff do not combine")
			return 2
		}
		return semDiff(*diff, filepath.Join(dir, "rules"), stdout, stderr)
	}
	outs, err := gen.Generate(filepath.Join(dir, "rules"))
	if err != nil {
		var es gen.Errors
		if errors.As(err, &es) {
			fmt.Fprintf(stderr, "%s\ngenrules: %d problem(s) in the rule table; nothing written\n", err, len(es))
		} else {
			fmt.Fprintf(stderr, "genrules: %v\n", err)
		}
		return 1
	}
	if *check {
		stale := 0
		for _, o := range outs {
			old, err := os.ReadFile(filepath.Join(dir, o.Path))
			if err != nil && !errors.Is(err, os.ErrNotExist) {
				fmt.Fprintf(stderr, "genrules: check: %v\n", err)
				return 1
			}
			if d := gen.Diff(o.Path, old, o.Data); d != "" {
				fmt.Fprint(stdout, d)
				fmt.Fprintf(stderr, "genrules: %s is stale; run go generate ./sandbox\n", o.Path)
				stale++
			}
		}
		if stale > 0 {
			return 1
		}
		return 0
	}
	for _, o := range outs {
		if err := writeAtomic(filepath.Join(dir, o.Path), o.Data); err != nil {
			fmt.Fprintf(stderr, "genrules: %v\n", err)
			return 1
		}
	}
	return 0
}

// semDiff prints one line per semantic change. Neither table has to pass
// today's checks: an old table may predate a lint, and the point of the
// diff is to read the change, not to approve it.
func semDiff(oldDir, newDir string, stdout, stderr io.Writer) int {
	old, err := gen.Load(oldDir)
	if err != nil {
		fmt.Fprintf(stderr, "genrules: diff: old table:\n%v\n", err)
		return 2
	}
	cur, err := gen.Load(newDir)
	if err != nil {
		fmt.Fprintf(stderr, "genrules: diff: new table:\n%v\n", err)
		return 2
	}
	lines := gen.SemDiff(old, cur)
	for _, l := range lines {
		fmt.Fprintln(stdout, l)
	}
	if len(lines) > 0 {
		return 1
	}
	return 0
}

// moduleRoot finds the directory holding go.mod, so genrules works the same
// from go generate (run in sandbox/) and from the module root.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("find module root: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("find module root: no go.mod above the working directory")
		}
		dir = parent
	}
}

// writeAtomic replaces path with data through a temporary file in the same
// directory and a rename, so a failed run leaves the old file whole.
func writeAtomic(path string, data []byte) error {
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".genrules-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
