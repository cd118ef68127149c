package landlock

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// benchSpec is a home of 104 entries with 60 hidden paths in it (some
// missing, some two levels down) and a dozen system ones, like the
// table's default hidden set, and a workspace under the home.
func benchSpec(root string, mk func(p string, dir bool)) Spec {
	home := filepath.Join(root, "home/u")
	for i := range 90 {
		mk(filepath.Join(home, fmt.Sprintf("file%02d", i)), false)
	}
	for i := range 14 {
		mk(filepath.Join(home, fmt.Sprintf(".dir%02d/x", i)), false)
	}
	for _, d := range []string{".config", ".local/share", ".cache"} {
		for i := range 20 {
			mk(filepath.Join(home, d, fmt.Sprintf("app%02d/f", i)), false)
		}
	}
	mk(filepath.Join(home, "src/app/main.go"), false)
	for _, s := range []string{"etc/passwd", "etc/shadow", "etc/ssh/ssh_host_rsa_key", "var/lib/x", "run/user/1000/bus", "usr/bin/sh"} {
		mk(filepath.Join(root, s), false)
	}
	spec := Spec{Handled: FSAt(7), Grants: []Grant{{Path: "/", Access: read}}}
	hide := func(p string) { spec.Grants = append(spec.Grants, Grant{Path: p, Access: ReadDir}) }
	for i := range 14 {
		hide(filepath.Join(home, fmt.Sprintf(".dir%02d", i)))
	}
	for i := range 14 {
		hide(filepath.Join(home, fmt.Sprintf(".missing%02d", i)))
	}
	for _, d := range []string{".config", ".local/share", ".cache"} {
		for i := 0; i < 20; i += 2 {
			hide(filepath.Join(home, d, fmt.Sprintf("app%02d", i)))
		}
	}
	for _, s := range []string{"etc/shadow", "etc/ssh/ssh_host_rsa_key", "var/lib/x", "run/user"} {
		hide(filepath.Join(root, s))
	}
	spec.Grants = append(spec.Grants, Grant{Path: filepath.Join(home, "src/app"), Access: write, Must: true})
	return spec
}

// BenchmarkPlanMap is the planning alone, over a file system in memory.
func BenchmarkPlanMap(b *testing.B) {
	kinds := map[string]Kind{}
	spec := benchSpec("/", func(p string, dir bool) { kinds[p] = KindFile })
	m := newMapFS(kinds)
	rs, err := Plan(spec, 7, m)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Plan(spec, 7, m); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(rs.Rules)), "rules")
}

// BenchmarkPlanOS is the planning with this machine's lstat and readdir,
// over a tree of the same shape in a temporary directory.
func BenchmarkPlanOS(b *testing.B) {
	root, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	spec := benchSpec(root, func(p string, dir bool) {
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, nil, 0o644)
	})
	rs, err := Plan(spec, 7, OS{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Plan(spec, 7, OS{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(rs.Rules)), "rules")
}
