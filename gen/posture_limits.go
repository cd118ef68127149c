package gen

// sizePosture reads the options that modify the next tmpfs: --size bounds
// it (a Resources entry naming the tmpfs) and --perms only sets its mode.
// It reports whether args[i] was one of them.
func sizePosture(p posture, r *Rule, i int, cond string) bool {
	switch r.Args[i] {
	case "--perms":
		return true
	case "--size":
	default:
		return false
	}
	size, dest := r.Args[i+1], "the next tmpfs"
	if lim, ok := sizeVars[size]; ok {
		size = "the " + code(lim) + " limit"
	} else {
		size = code(size) + " bytes"
	}
	for j := i + 2; j+1 < len(r.Args); j++ {
		if r.Args[j] == "--tmpfs" {
			dest = subject(r, r.Args[j+1])
			break
		}
	}
	p.add("Resources", r.ID, dest+": a tmpfs of at most "+size, cond)
	return true
}
