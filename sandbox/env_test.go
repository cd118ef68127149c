package sandbox

import (
	"slices"
	"testing"
)

func TestStripEnv(t *testing.T) {
	in := []string{
		"PATH=/usr/bin", "HOME=/home/me",
		"ASTRID_HOME=/home/me/.astrid", "ASTRID_SOCKET_PATH=/run/astrid.sock", "ASTRID_SESSION_TOKEN=secret",
		"astrid_session_token=kept", "ASTRID_SESSION_TOKEN_X=kept", "ASTRID_HOMEX=kept", "NOEQUALS",
		"ASTRID_SESSION_TOKEN=second",
	}
	want := []string{"PATH=/usr/bin", "HOME=/home/me", "astrid_session_token=kept", "ASTRID_SESSION_TOKEN_X=kept", "ASTRID_HOMEX=kept", "NOEQUALS"}
	if got := stripEnv(in); !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	for _, name := range strippedEnv {
		if !isStripped(name) {
			t.Errorf("%s not stripped", name)
		}
	}
}
