package sandbox

import (
	"slices"
	"strings"
	"testing"
)

// TestRefuseRowRemoved: each refuse row is the only source of its
// refusal. With the row left out of the check list, the configuration of
// its TestRefuseRows case is planned and built: no Go check behind the
// row stops it, as `make mutate` needs to notice a deleted row by a test
// that fails rather than by an error that changed. Where another row
// necessarily refuses the same configuration (also: a write path / holds
// every home), that row names the refusal with the first left out, and
// the configuration is planned with both left out.
func TestRefuseRowRemoved(t *testing.T) {
	// The host's git config files lie under the home (~/.gitconfig,
	// ~/.config/git/config), read whatever the workspace: reached through
	// the same link, no-link-git refuses them.
	also := map[string]string{"no-root-grant": "no-home-grant", "no-link-home": "no-link-git"}
	cases := refuseCases()
	for _, row := range refuseRows {
		t.Run(row.id, func(t *testing.T) {
			cfg := setupRefuseCase(t, cases, row.id)
			goos := refuseRowGOOS(row.id)
			drop := []string{row.id}
			if other := also[row.id]; other != "" {
				_, err := planWithoutRows(goos, cfg, drop)
				if err == nil || !strings.Contains(err.Error(), "(refuse: "+other+")") {
					t.Fatalf("newPlan(%s) without row %s = %v, want a refusal by %s", goos, row.id, err, other)
				}
				drop = append(drop, other)
			}
			p, err := planWithoutRows(goos, cfg, drop)
			if err != nil {
				t.Fatalf("newPlan(%s) without rows %v = %v, want the configuration planned", goos, drop, err)
			}
			if goos == "darwin" {
				if prof := darwinProfile(p); !strings.HasPrefix(prof, "(version 1)") {
					t.Errorf("no profile built: %q", prof)
				}
			} else if args := linuxArgs(p); len(args) == 0 {
				t.Error("no argv built")
			}
		})
	}
}

// planWithoutRows is newPlan with the check list lacking the rows ids.
func planWithoutRows(goos string, cfg Config, ids []string) (*plan, error) {
	rows := slices.DeleteFunc(slices.Clone(refuseRows[:]), func(r refuseRow) bool { return slices.Contains(ids, r.id) })
	var r resolver
	return planWithRows(&r, goos, cfg, rows)
}
