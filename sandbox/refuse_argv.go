package sandbox

// refuseArgv runs rows against the bwrap argv of p with a command of cmd
// words (its name and arguments): the input bwrap-argv, which exists once
// the plan is made.
func refuseArgv(rows []refuseRow, p *plan, cmd int) error {
	in := []refuseSubject{{refuseCtx: &refuseCtx{guard: true}, in: refuseBwrapArgv, field: "bwrap argv", amount: uint64(p.ownArgs + cmd), cmd: cmd, mounts: len(p.mounts)}}
	return refuseInputs(rows, in)
}
