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
func (f *checkedSpawn) setupFailed(c *Cmd, msg string) error {
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
// descriptor had no socket to mount over, and gets none: there is nothing
// to replace them with (its rebuilt directories, if any, are chosen
// anew).
func relistSockets(p *plan) *plan {
	if p.nullFD == "" && len(p.socketDirs) == 0 {
		return p
	}
	q := *p
	q.sockets, q.socketDirs, q.socketSubdirs, q.socketLinks, q.socketEntries = nil, nil, nil, nil, nil
	base := sortMounts(linuxMounts(&q, nil))
	q.mounts = base
	var r resolver
	var ls sockListings
	hideSockets(&q, &r, &ls, hostSocketFacts(&r, &q, q.socketGrants, &ls))
	if q.nullFD == "" && len(q.sockets) > 0 {
		q.sockets = nil
		q.mounts = withSocketMounts(&q, base)
	}
	return &q
}
