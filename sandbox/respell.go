package sandbox

import "fmt"

// respellHidden adds, for each existing hidden path that is not an
// ancestor of the workspace, the spelling the file system stores for it
// when stored reports one that differs (.SSH asked, .ssh on disk; a
// composed é asked, a decomposed one on disk), as a hidden path of its
// own: the profile denies both, whichever one the kernel matches. A
// stored spelling the profile cannot hold is an error.
func respellHidden(hidden []pathFact, ws string, stored func(string) (string, bool)) ([]pathFact, error) {
	n := len(hidden)
	for i := 0; i < n; i++ {
		h := hidden[i]
		if h.kind == kindMissing || h.ancestor {
			continue
		}
		s, ok := stored(h.path)
		if !ok || s == h.path {
			continue
		}
		if err := checkPath("hidden path", s); err != nil {
			return nil, fmt.Errorf("hidden path %q: as stored on disk: %w", h.path, err)
		}
		hidden = append(hidden, fact(s, h.kind, ws))
	}
	return hidden, nil
}
