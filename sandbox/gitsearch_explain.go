package sandbox

// ExplainGitSearch says where the search for repositories below each
// writable root stopped at a bound of the git-search rows, for cfg on
// goos: one step each, its rule the bound's row and its args the root,
// the first directory (or git directory) left out, and the bound. The
// repositories there and beyond are not protected. None when no bound
// was reached.
func ExplainGitSearch(goos string, cfg Config) ([]Step, error) {
	var r resolver
	cfg.Policy = Required
	p, err := newPlanWith(&r, goos, cfg)
	if err != nil {
		return nil, err
	}
	var steps []Step
	for _, c := range p.gitCuts {
		steps = append(steps, Step{Rule: c.rule, Args: []string{c.root, c.at, c.what}})
	}
	return steps, nil
}
