package sandbox

import (
	"errors"
	"strings"
	"testing"
)

func TestParseBackend(t *testing.T) {
	for s, want := range map[string]Backend{"bwrap": BackendBwrap, "LANDLOCK": BackendLandlock, "Auto": BackendAuto} {
		if b, err := ParseBackend(s); err != nil || b != want {
			t.Errorf("%q: %v %v", s, b, err)
		}
	}
	for _, s := range []string{"", "landlocks", "off", "seatbelt"} {
		if _, err := ParseBackend(s); !errors.Is(err, ErrBadPolicy) {
			t.Errorf("%q: %v, want ErrBadPolicy", s, err)
		}
	}
	t.Setenv(BackendVariable, "")
	if b, err := BackendFromEnvironment(); b != BackendBwrap || err != nil {
		t.Errorf("unset: %v %v, want bwrap: the reduced backend is never a default", b, err)
	}
	t.Setenv(BackendVariable, "landlock")
	if b, err := BackendFromEnv.resolve(); b != BackendLandlock || err != nil {
		t.Errorf("from env: %v %v", b, err)
	}
	if b, _ := BackendBwrap.resolve(); b != BackendBwrap {
		t.Errorf("an explicit bwrap followed the variable: %v", b)
	}
	t.Setenv(BackendVariable, "maybe")
	if _, err := BackendFromEnvironment(); !errors.Is(err, ErrBadPolicy) || !strings.Contains(err.Error(), BackendVariable) {
		t.Errorf("bad variable: %v", err)
	}
}

// TestReduced: every row the landlock column does not call kept is in the
// list, each with its why, and an older ABI adds what it lacks.
func TestReduced(t *testing.T) {
	rows := map[string]bool{}
	for _, g := range Reduced(7) {
		if g.Enforce != "weaker" && g.Enforce != "lost" || g.Why == "" {
			t.Errorf("%+v", g)
		}
		rows[g.Rule] = true
	}
	for _, want := range []string{"proc", "dns-stub", "pin-dir", "tmp", "hide-dir", "proxy-net", "protect-path"} {
		if !rows[want] {
			t.Errorf("Reduced(7) lacks %s", want)
		}
	}
	old := map[string]bool{}
	for _, g := range Reduced(3) {
		old[g.Rule+": "+g.Why] = true
	}
	for _, want := range []string{"landlock-net-proxy: this kernel's Landlock ABI 3 lacks bind-tcp,connect-tcp (ABI 4)", "landlock-scopes: this kernel's Landlock ABI 3 lacks abstract-unix-socket,signal (ABI 6)"} {
		if !old[want] {
			t.Errorf("Reduced(3) lacks %q", want)
		}
	}
}
