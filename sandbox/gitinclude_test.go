package sandbox

import (
	"slices"
	"testing"
)

// TestGitConfigIncludes pins which paths a config includes: [include] and
// [includeIf "..."] path keys in any case, a key on its header's line,
// quoted values with comments dropped; not another section's path.
func TestGitConfigIncludes(t *testing.T) {
	cfg := "[core]\n\tpath = no\n[include]\n\tpath = ../a\n[IncludeIf \"gitdir:/x]/\"] PATH = \"b c\" # note\n[includeIf \"onbranch:main\"]\n\tpath=~/d\n[remote \"include\"]\n\tpath = no\n"
	if got, want := gitConfigIncludes([]byte(cfg)), []string{"../a", "b c", "~/d"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}
