package sandbox

import (
	"path/filepath"
	"testing"
)

// BenchmarkPlaceholders is one run's placeholders for a workspace that
// lacks the 8 root rows' paths: the locks, the record written and synced,
// the 8 files made and linked, then removed, the record dropped and the
// journal swept (startPlaceholders, phRun.finish); what bwrap's own
// mount points cost before is in BenchmarkSpawn.
func BenchmarkPlaceholders(b *testing.B) {
	base := b.TempDir()
	ws := filepath.Join(base, "ws")
	journal := filepath.Join(base, "journal")
	if err := makeJournal(ws); err != nil {
		b.Fatal(err)
	}
	p := &plan{workspace: ws}
	for _, row := range protectedPaths {
		if row.base == protectRoot {
			p.protected = append(p.protected, pathFact{path: ws + "/" + row.path, kind: kindMissing})
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		r, err := startPlaceholders(p, []string{journal})
		if err != nil {
			b.Fatal(err)
		}
		r.finish()
	}
}
