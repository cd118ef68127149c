package gen

import (
	"fmt"
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
}

// Generate loads and checks the table under rulesDir and renders every
// output. It returns nothing unless all of them rendered, so a caller never
// writes half a generation.
func Generate(rulesDir string) ([]Output, error) {
	t, err := Load(rulesDir)
	if err != nil {
		return nil, err
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
