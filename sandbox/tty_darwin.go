package sandbox

// ownTerminals lists the terminals this process's standard descriptors
// are, which the command inherits: the profile lets it use those and no
// other terminal.
func ownTerminals() []pathFact {
	return terminalsIn("/dev", "ttys", 0, 1, 2)
}
