package sandbox

import (
	"fmt"
	"strings"
	"testing"
)

// TestPlanUnchangedBySpawn: the host facts a spawn learns or makes (the
// bwrap's options, the status and block descriptors, a macOS spawn's
// proxy port and temporary directory) are passed to the builders, not
// written into the plan newPlan made, which a spawn leaves as it was.
func TestPlanUnchangedBySpawn(t *testing.T) {
	_, _, ws := fixture(t)
	cfg := Config{Workspace: ws, Limits: Limits{Processes: 64}}
	c, err := NewCmd(t.Context(), cfg, "true")
	if err != nil {
		t.Fatal(err)
	}
	if c.checked == nil {
		t.Fatal("no folded spawn")
	}
	check := func(when string) {
		p := c.checked.plan
		if p.disableUserns || p.statusFD != "" || p.blockFD != "" {
			t.Errorf("%s: the plan holds host facts: disableUserns %v, statusFD %q, blockFD %q", when, p.disableUserns, p.statusFD, p.blockFD)
		}
	}
	check("after NewCmd")
	before := fmt.Sprintf("%+v", *c.checked.plan)
	if err := c.Run(); err != nil {
		t.Fatal(err)
	}
	check("after Run")
	if after := fmt.Sprintf("%+v", *c.checked.plan); after != before {
		t.Errorf("the run changed the plan:\nbefore %s\nafter  %s", before, after)
	}
	if !c.checked.hf.disableUserns {
		t.Errorf("bwrap 0.8 takes --disable-userns, and the spawn's host facts do not say so")
	}
}

// TestPlanUnchangedByMacSpawnFacts: a macOS plan in mode proxy gets its
// proxy's port as a host fact, in the copy its profile is built from; the
// plan keeps none.
func TestPlanUnchangedByMacSpawnFacts(t *testing.T) {
	_, _, ws := fixture(t)
	cfg := Config{Workspace: ws, Network: Network{Mode: NetworkProxy}}
	w, p, hf, err := prefix("darwin", cfg, checkNone)
	if err != nil {
		t.Fatal(err)
	}
	if p.proxyPort != "" || p.proxyLn != nil || p.tmpdir != "" {
		t.Errorf("the plan holds a spawn's facts: proxyPort %q, proxyLn %v, tmpdir %q", p.proxyPort, p.proxyLn, p.tmpdir)
	}
	if hf.proxyPort == "" || !strings.Contains(w.Profile, "localhost:"+hf.proxyPort) {
		t.Errorf("host facts' proxy port %q is not the profile's:\n%s", hf.proxyPort, w.Profile)
	}
}
