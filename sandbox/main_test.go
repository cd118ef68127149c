package sandbox

import (
	"os"
	"testing"
)

// TestMain keeps the password database's home out of every test but those
// that set ownPasswdHome themselves: its defaults would make a test's
// plan depend on what the machine's own home holds.
func TestMain(m *testing.M) {
	ownPasswdHome = func() string { return "" }
	os.Exit(m.Run())
}

// withPasswdHome makes home the password database's home for one test.
func withPasswdHome(t *testing.T, home string) {
	t.Helper()
	orig := ownPasswdHome
	ownPasswdHome = func() string { return home }
	t.Cleanup(func() { ownPasswdHome = orig })
}
