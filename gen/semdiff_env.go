package gen

// keepEnvDiff compares the keep-env rows. Keeping a variable gives it to
// the process, so an added row widens and a removed one narrows: the
// reverse of strip-env.
func keepEnvDiff(line func(string, ...any), old, new []Entry) {
	oldByID := map[string]Entry{}
	for _, e := range old {
		oldByID[e.ID] = e
	}
	newByID := map[string]Entry{}
	for _, e := range new {
		newByID[e.ID] = e
	}
	for _, e := range old {
		if _, ok := newByID[e.ID]; !ok {
			line("keep-env %q: removed: %s (narrowed)", e.ID, e.Value)
		}
	}
	for _, e := range new {
		o, ok := oldByID[e.ID]
		switch {
		case !ok:
			line("keep-env %q: added: %s (widened)", e.ID, e.Value)
		case o.Value != e.Value:
			line("keep-env %q: changed: %s -> %s (widened and narrowed)", e.ID, o.Value, e.Value)
		}
	}
}

// stripEnvReach is how changing a strip-env name from a to b moves what
// the process gets: a pattern that covers every name the old one matched
// takes more from it (narrowed), one the old one covers takes less
// (widened), and an unrelated one does both.
func stripEnvReach(a, b string) reach {
	pa, errA := parseEnvPattern(a)
	pb, errB := parseEnvPattern(b)
	switch {
	case errA != "" || errB != "":
		return reach{wider: true, narrower: true}
	case pb.covers(pa):
		return reach{narrower: true}
	case pa.covers(pb):
		return reach{wider: true}
	}
	return reach{wider: true, narrower: true}
}
