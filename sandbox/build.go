package sandbox

// The build stage: the generated builders (zz_generated.go) turn a plan
// into an argv or a profile. What they need of the host and of one spawn
// is passed in as hostFacts, never written into the plan, which newPlan
// made once and nothing changes afterwards.

// hostFacts are the build's inputs that are not the Config's: whether the
// installed bwrap takes --disable-userns (learnt by the lookup, a probe or
// a rejected spawn), and the descriptors of the status and block pipes of
// the one argv NewCmd's Start builds ("" for every other argv).
type hostFacts struct {
	disableUserns bool
	statusFD      string
	blockFD       string
}

// with is what the builders read: a copy of p with h, so a spawn's own
// descriptors or a retry's options never reach the plan another build
// reads.
func (p *plan) with(h hostFacts) *plan {
	q := *p
	q.disableUserns, q.statusFD, q.blockFD = h.disableUserns, h.statusFD, h.blockFD
	return &q
}
