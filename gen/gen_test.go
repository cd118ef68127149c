package gen

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dave/jennifer/jen"
	"github.com/sebdah/goldie/v2"
)

func TestGen(t *testing.T) {
	g := goldie.New(t, goldie.WithFixtureDir(fixtures+"/TestGen"), goldie.WithNameSuffix(".go.golden"))
	for _, name := range cases(t, "TestGen") {
		t.Run(name, func(t *testing.T) {
			outs, err := GenerateFS(os.DirFS(filepath.Join(fixtures, "TestGen", name)), "rules")
			if err != nil {
				t.Fatalf("generate: %v", err)
			}
			g.Assert(t, name, outs[0].Data)
		})
	}
}

// TestGenBad overlays each bad table's files on the minimal valid table and
// pins the exact error text: every problem, with its position.
func TestGenBad(t *testing.T) {
	g := goldie.New(t, goldie.WithFixtureDir(fixtures+"/TestGenBad"), goldie.WithNameSuffix(".err.golden"))
	names := cases(t, "TestGenBad")
	if len(names) < 12 {
		t.Fatalf("%d bad tables, want at least 12", len(names))
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			fsys := dirFS(t, fixtures+"/TestGen/minimal")
			for p, f := range dirFS(t, filepath.Join(fixtures, "TestGenBad", name)) {
				fsys[p] = f
			}
			outs, err := GenerateFS(fsys, "rules")
			if err == nil {
				t.Fatalf("generated %d outputs from a bad table", len(outs))
			}
			var es Errors
			if !errors.As(err, &es) {
				t.Fatalf("error is %T, want gen.Errors: %v", err, err)
			}
			for _, e := range es {
				if !strings.HasPrefix(e.Error(), "rules/") {
					t.Errorf("error without a rules/FILE:LINE:COL position: %q", e)
				}
			}
			g.Assert(t, name, []byte(err.Error()+"\n"))
		})
	}
}

// TestGenerated fails when sandbox/zz_generated.go no longer matches the
// rule table, the same drift CI catches with git diff.
func TestGenerated(t *testing.T) {
	outs, err := Generate("../rules")
	if err != nil {
		t.Fatalf("the rule table is invalid:\n%v", err)
	}
	for _, o := range outs {
		have, err := os.ReadFile(filepath.Join("..", o.Path))
		if err != nil {
			t.Fatal(err)
		}
		if d := Diff(o.Path, have, o.Data); d != "" {
			t.Errorf("%s is stale; run go generate ./sandbox\n%s", o.Path, d)
		}
	}
}

func TestGenDeterministic(t *testing.T) {
	a, err := Generate("../rules")
	if err != nil {
		t.Fatal(err)
	}
	b, err := Generate("../rules")
	if err != nil {
		t.Fatal(err)
	}
	for i := range a {
		if !bytes.Equal(a[i].Data, b[i].Data) {
			t.Errorf("%s differs between two runs", a[i].Path)
		}
		if !bytes.HasPrefix(a[i].Data, []byte("// "+Header+"\n")) && strings.HasSuffix(a[i].Path, ".go") {
			t.Errorf("%s does not start with the generated-code header", a[i].Path)
		}
		if wd, _ := os.Getwd(); bytes.Contains(a[i].Data, []byte(filepath.Dir(wd))) {
			t.Errorf("%s contains an absolute path of this machine", a[i].Path)
		}
	}
}

// TestCondExpr checks the Go test of each condition and of its negation,
// whichever of a field, == or != its expression is.
func TestCondExpr(t *testing.T) {
	for _, tc := range []struct {
		when []Cond
		want string
	}{
		{[]Cond{{Word: "network"}}, "p.network"},
		{[]Cond{{Not: true, Word: "network"}}, "!p.network"},
		{[]Cond{{Not: true, Word: "seccomp"}}, `p.seccompFD == ""`},
		{[]Cond{{Word: "seccomp"}, {Not: true, Word: "interactive"}}, `p.seccompFD != "" && !p.interactive`},
	} {
		var b strings.Builder
		if err := jen.Id("_").Op("=").Add(condExpr(tc.when, true)).Render(&b); err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimPrefix(b.String(), "_ = "); got != tc.want {
			t.Errorf("condExpr(%v) = %s, want %s", tc.when, got, tc.want)
		}
	}
	for _, tc := range []struct{ word, want string }{{"is-dir", "f.kind != kindDir"}} {
		var b strings.Builder
		if err := jen.Id("_").Op("=").Add(condExpr([]Cond{{Not: true, Word: tc.word}}, false)).Render(&b); err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimPrefix(b.String(), "_ = "); got != tc.want {
			t.Errorf("condExpr(not %s) = %s, want %s", tc.word, got, tc.want)
		}
	}
}

func TestSatisfiable(t *testing.T) {
	for _, tc := range []struct {
		forWord string
		when    []Cond
		want    truth
	}{
		{"", []Cond{{Word: "network"}}, sometimes},
		{"", []Cond{{Word: "network"}, {Not: true, Word: "network"}}, never},
		{"hidden", []Cond{{Word: "is-dir"}, {Word: "is-file"}}, never},
		{"hidden", []Cond{{Not: true, Word: "is-dir"}, {Not: true, Word: "is-file"}, {Not: true, Word: "is-missing"}}, never},
		{"hidden", []Cond{{Not: true, Word: "is-dir"}, {Not: true, Word: "is-file"}}, sometimes},
		{"read", []Cond{{Not: true, Word: "is-dir"}, {Not: true, Word: "is-file"}}, never},
		{"read", []Cond{{Not: true, Word: "is-missing"}}, always},
		{"hidden", []Cond{{Word: "ancestor-of-workspace"}, {Word: "inside-workspace"}}, never},
		{"hidden", []Cond{{Not: true, Word: "ancestor-of-workspace"}, {Word: "is-file"}}, sometimes},
	} {
		r := &Rule{For: tc.forWord, When: tc.when}
		if got := satisfiable(r); got != tc.want {
			t.Errorf("for %q when %q: got %d, want %d", tc.forWord, r.WhenString(), got, tc.want)
		}
	}
}
