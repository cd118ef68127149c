package sandbox

import (
	"fmt"
	"strings"
	"testing"
	"text/template"
)

// The builders' cost, with the path facts already gathered: these measure
// the generated code alone, which is what runs on every spawn after the
// lstats. scripts/bench-ratios.sh turns the output into the README's ratios
// (1024 paths against 8, the template against the builder).

// benchSizes are the numbers of hidden paths the builders are measured at.
var benchSizes = []int{0, 8, 64, 1024}

// benchPlan is a plan with n hidden paths, half directories and half files,
// under a realistic home, in the shape newPlan returns (mounts sorted).
func benchPlan(n int) *plan {
	const ws = "/home/user/src/project"
	p := &plan{workspace: ws, network: true, netHost: true, callerRoot: true, disableUserns: true}
	for i := range n {
		kind, name := kindDir, fmt.Sprintf("/home/user/.config/tool-%04d", i)
		if i%2 == 1 {
			kind, name = kindFile, fmt.Sprintf("/home/user/.local/share/creds-%04d.json", i)
		}
		p.hidden = append(p.hidden, fact(name, kind, ws))
	}
	p.numberFiles(true)
	p.mounts = sortMounts(linuxMounts(p, nil))
	return p
}

func BenchmarkLinuxArgs(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("hidden=%d", n), func(b *testing.B) {
			p := benchPlan(n)
			b.ReportAllocs()
			var a []string
			for b.Loop() {
				a = linuxArgs(p)
			}
			_ = a
		})
	}
}

func BenchmarkDarwinProfile(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("hidden=%d", n), func(b *testing.B) {
			p := benchPlan(n)
			b.ReportAllocs()
			b.SetBytes(int64(len(darwinProfile(p))))
			var s string
			for b.Loop() {
				s = darwinProfile(p)
			}
			_ = s
		})
	}
}

// BenchmarkDarwinProfileFloor is the least any builder that returns the
// profile as a new string can cost: one allocation of its exact size and
// one copy of its bytes, with nothing to compute. At 0 hidden paths that is
// most of the generated builder's time; the rest of the allocation's cost
// is the garbage collector's, whose share grows with bytes allocated.
func BenchmarkDarwinProfileFloor(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("hidden=%d", n), func(b *testing.B) {
			text := darwinProfile(benchPlan(n))
			b.ReportAllocs()
			b.SetBytes(int64(len(text)))
			var s string
			for b.Loop() {
				s = strings.Clone(text)
			}
			_ = s
		})
	}
}

// BenchmarkDarwinProfileTemplate renders the same profile with text/template,
// the obvious way to write a profile builder by hand; the generated builder
// is measured against it.
func BenchmarkDarwinProfileTemplate(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("hidden=%d", n), func(b *testing.B) {
			p := benchPlan(n)
			d := templateData(p)
			b.ReportAllocs()
			b.SetBytes(int64(len(darwinProfile(p))))
			var sb strings.Builder
			for b.Loop() {
				sb.Reset()
				if err := profileTemplate.Execute(&sb, d); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// profileTemplate is a hand-written reference for rules/darwin.yaml. It is
// kept equal to darwinProfile's output by TestProfileTemplateMatches, so the
// comparison is between two renderings of the same text.
var profileTemplate = template.Must(template.New("sbpl").Parse(`(version 1)
(deny default)
(allow process-exec*)
(allow process-fork)
{{if .Network}}(allow network*)
{{end}}(allow sysctl-read)
(allow ipc-posix-shm)
(allow mach*)
(allow file-read*
    (subpath "/usr")
    (subpath "/bin")
    (subpath "/sbin")
    (subpath "/System")
    (subpath "/Library")
    (subpath "/opt")
    (subpath "/dev")
    (subpath "{{.Workspace}}")
    (subpath "/private/tmp")
    (subpath "/private/var/folders")
    (literal "/"))
(allow file-write*
    (subpath "{{.Workspace}}")
    (subpath "/private/tmp")
    (subpath "/private/var/folders")
    (literal "/dev/null"))
{{range .Read}}(allow file-read* (subpath "{{.}}"))
{{end}}{{range .Write}}(allow file-read* (subpath "{{.}}"))
(allow file-write* (subpath "{{.}}"))
{{end}}{{range .Hidden}}{{if and (not .Ancestor) (not .File)}}(deny file-read* (subpath "{{.Path}}"))
(deny file-write* (subpath "{{.Path}}"))
{{end}}{{end}}{{range .Hidden}}{{if and (not .Ancestor) .File}}(deny file-read* (literal "{{.Path}}"))
(deny file-write* (literal "{{.Path}}"))
{{end}}{{end}}`))

type templateFact struct {
	Path           string
	Ancestor, File bool
}

type templateInput struct {
	Workspace   string
	Network     bool
	Read, Write []string
	Hidden      []templateFact
}

// templateData converts a plan outside the timed loop, as a template-based
// builder would keep its input.
func templateData(p *plan) templateInput {
	d := templateInput{Workspace: p.workspace, Network: p.network}
	for _, f := range p.read {
		d.Read = append(d.Read, f.path)
	}
	for _, f := range p.write {
		d.Write = append(d.Write, f.path)
	}
	for _, f := range p.hidden {
		d.Hidden = append(d.Hidden, templateFact{Path: f.path, Ancestor: f.ancestor, File: f.kind == kindFile})
	}
	return d
}

// TestProfileTemplateMatches keeps the template an honest reference: it
// renders exactly what the generated builder renders, for the golden cases
// and for every benchmark size.
func TestProfileTemplateMatches(t *testing.T) {
	var plans []*plan
	for _, c := range profileCases {
		plans = append(plans, newTestPlan(c))
	}
	for _, n := range benchSizes {
		plans = append(plans, benchPlan(n))
	}
	for i, p := range plans {
		var sb strings.Builder
		if err := profileTemplate.Execute(&sb, templateData(p)); err != nil {
			t.Fatal(err)
		}
		if got, want := sb.String(), darwinProfile(p); got != want {
			t.Errorf("plan %d: template renders\n%s\nbuilder renders\n%s", i, got, want)
		}
	}
}

// TestBenchPlansAllocateOnce runs the benchmarks' own plans through the
// allocation check, so the sizes measured are sizes known to stay at one
// allocation per build.
func TestBenchPlansAllocateOnce(t *testing.T) {
	for _, n := range benchSizes {
		p := benchPlan(n)
		if a := testing.AllocsPerRun(5, func() { _ = linuxArgs(p) }); a != 1 {
			t.Errorf("hidden=%d: linuxArgs made %v allocations, want 1", n, a)
		}
		if a := testing.AllocsPerRun(5, func() { _ = darwinProfile(p) }); a != 1 {
			t.Errorf("hidden=%d: darwinProfile made %v allocations, want 1", n, a)
		}
	}
}
