package gen

// postureSize reads the option that modifies the next tmpfs: --size bounds
// it, a Resources entry naming the tmpfs.
func postureSize(p posture, u flagAt) {
	r, i := u.r, u.i
	size, dest := r.Args[i+1], "the next tmpfs"
	if lim, ok := sizeVars[size]; ok {
		size = "the " + code(lim) + " limit"
	} else {
		size = code(size) + " bytes"
	}
	for j := i + 2; j+1 < len(r.Args); j++ {
		if r.Args[j] == u.spec.before {
			dest = subject(r, r.Args[j+1])
			break
		}
	}
	u.add(p, "Resources", dest+": a tmpfs of at most "+size)
}
