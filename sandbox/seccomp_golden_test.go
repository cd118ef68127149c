package sandbox

import (
	"testing"

	"github.com/sandtable/sandtable/internal/seccomp"
	"github.com/sebdah/goldie/v2"
)

// TestProfileSeccomp pins the assembled filter of every architecture, as
// a listing of its instructions: a seccomp row that stops reaching the
// filter changes it, whatever the rule listing says.
func TestProfileSeccomp(t *testing.T) {
	g := goldie.New(t, goldie.WithFixtureDir(fixtures+"/TestProfileSeccomp"), goldie.WithNameSuffix(".golden"))
	for _, goarch := range []string{"amd64", "arm64"} {
		g.Assert(t, goarch, []byte(seccomp.Listing(seccompFilter(goarch))))
	}
}
