package sandbox

import (
	"os"
	"testing"
)

// TestCachesMadeAboveBase: a cache base under directories that are missing
// (XDG_CACHE_HOME=~/.cache/deep with no ~/.cache) is made with them, and
// the watch, planned after, knows they exist: a hidden default under
// ~/.cache is watched for in ~/.cache, not as ~/.cache appearing on the
// host, which refused the first run.
func TestCachesMadeAboveBase(t *testing.T) {
	_, home, ws := fixture(t)
	t.Setenv("XDG_CACHE_HOME", home+"/.cache/deep")
	if _, err := os.Lstat(home + "/.cache"); err == nil {
		t.Fatal("the fixture's home has a .cache")
	}
	c, err := NewCmd(t.Context(), Config{Workspace: ws}, "true")
	if err != nil {
		t.Fatal(err)
	}
	if out, err := c.CombinedOutput(); err != nil {
		t.Errorf("first run: %v: %s", err, out)
	}
}
