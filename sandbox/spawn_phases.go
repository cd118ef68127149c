package sandbox

// spawnPhases, when set (BenchmarkSpawnPhases), is told as each part of
// a NewCmd spawn ends, by the part's name, so that a benchmark can say
// which part a spawn's time went to; nil otherwise, which costs a spawn
// one comparison per part. The parts, in order: plan (NewCmd's plan,
// argv and host facts), check (the bwrap host's verdict), locks (the
// protected directories'), stdio (the stdio rows' pipes), window (the
// limits' cgroup and block pipe), exec (bwrap forked and executed, and
// in mode proxy the network helper), bwrap (bwrap's options parsed and
// the sandbox's first process cloned: its child-pid line), release (the
// limits applied and the command let go), watch (what the watch's setup
// took beyond bwrap's), command (the command's run and bwrap's exit),
// after (Wait's own work after it).
var spawnPhases func(part string)

// phaseDone tells spawnPhases that part has ended.
func phaseDone(part string) {
	if spawnPhases != nil {
		spawnPhases(part)
	}
}
