package sandbox

import "slices"

// respawnVanished lets Wait run a spawn again once when a host socket it
// hid was removed between the listing and bwrap's mount; a test turns it
// off for its control.
var respawnVanished = true

// setupFailed is Wait's answer to a sandbox whose setup failed with msg.
// When bwrap could not mount over a hidden host socket that is gone (see
// vanishedSocket) and nothing of the caller's I/O was consumed (a copied
// stdin was), the spawn runs once more with the host's sockets listed
// anew; bwrap's message from the failed setup has reached Stderr by then.
// Otherwise it is the unavailable error, which names the socket.
func (f *fold) setupFailed(c *Cmd, msg string) error {
	if !respawnVanished || f.respawned || vanishedSocket(f.plan, msg) == "" || !c.replayable() {
		return f.unavailable(msg)
	}
	f.respawned = true
	f.plan = relistSockets(f.plan)
	// Start closed this spawn's own memfds: the run gets fresh ones, in
	// the wrapper's places at the start of ExtraFiles.
	fds, owned, err := openFiles(f.files)
	if err != nil {
		return f.unavailable(msg)
	}
	defer closeAll(owned)
	extra := slices.Concat(fds, c.ExtraFiles[min(len(f.files), len(c.ExtraFiles)):])
	c.renew(f.args(c))
	c.ExtraFiles = extra
	if retry, err := f.attempt(c); retry || err != nil {
		if err == nil {
			err = f.unavailable(msg)
		}
		return err
	}
	return f.wait(c)
}

// relistSockets is a new plan, p with the hidden host sockets the host
// has now in place of p's; p is not changed. A plan without the /dev/null
// descriptor had none to hide and gets none: there is nothing to replace
// them with.
func relistSockets(p *plan) *plan {
	if p.nullFD == "" {
		return p
	}
	q := *p
	q.sockets = nil
	q.mounts = sortMounts(linuxMounts(&q, nil))
	var r resolver
	q.sockets = hiddenSockets(&q, hostSocketFacts(&r, &q, q.socketGrants))
	q.mounts = withSocketMounts(&q, q.mounts)
	return &q
}
