package sandbox

import (
	"testing"
)

// TestPlanUnchangedBySpawn: the host facts a spawn learns or makes (the
// bwrap's options, the status and block descriptors) are passed to the
// builders, not written into the plan newPlan made.
func TestPlanUnchangedBySpawn(t *testing.T) {
	_, _, ws := fixture(t)
	cfg := Config{Workspace: ws, Limits: Limits{Processes: 64}}
	c, err := NewCmd(t.Context(), cfg, "true")
	if err != nil {
		t.Fatal(err)
	}
	if c.fold == nil {
		t.Fatal("no folded spawn")
	}
	check := func(when string) {
		p := c.fold.plan
		if p.disableUserns || p.statusFD != "" || p.blockFD != "" {
			t.Errorf("%s: the plan holds host facts: disableUserns %v, statusFD %q, blockFD %q", when, p.disableUserns, p.statusFD, p.blockFD)
		}
	}
	check("after NewCmd")
	if err := c.Run(); err != nil {
		t.Fatal(err)
	}
	check("after Run")
	if !c.fold.hf.disableUserns {
		t.Errorf("bwrap 0.8 takes --disable-userns, and the spawn's host facts do not say so")
	}
}
