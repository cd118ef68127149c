package gen

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Output is one generated file, its path relative to the module root.
type Output struct {
	Path string
	Data []byte
}

// Outputs are the generated files, in the order genrules writes them.
var Outputs = []struct {
	Path   string
	Render func(*Table) ([]byte, error)
}{
	{Path: "sandbox/zz_generated.go", Render: Emit},
	{Path: "docs/POLICY.md", Render: Doc},
	{Path: "sandbox/zz_vocab.go", Render: EmitVocab},
}

// Generate loads and checks the table under rulesDir and renders every
// output. It returns nothing unless all of them rendered, so a caller never
// writes half a generation.
func Generate(rulesDir string) ([]Output, error) {
	return GenerateFS(os.DirFS(rulesDir), "rules")
}

// GenerateFS is [Generate] over any file system, naming its files name/FILE.
func GenerateFS(fsys fs.FS, name string) ([]Output, error) {
	t, err := LoadFS(fsys, name)
	if err != nil {
		var loadErrs Errors
		if t == nil || !errors.As(err, &loadErrs) {
			return nil, err
		}
		var c errs
		c.list = loadErrs
		if checkErrs, ok := Check(t).(Errors); ok {
			c.list = append(c.list, checkErrs...)
		}
		return nil, c.err()
	}
	if err := Check(t); err != nil {
		return nil, err
	}
	var outs []Output
	for _, o := range Outputs {
		data, err := o.Render(t)
		if err != nil {
			return nil, fmt.Errorf("generate %s: %w", filepath.ToSlash(o.Path), err)
		}
		outs = append(outs, Output{Path: o.Path, Data: data})
	}
	return outs, nil
}
