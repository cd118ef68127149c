package sandbox

import "os"

// removePlaceholders removes the empty files bwrap made on the host as the
// mount points of missing protected paths (rule protect-placeholder), once
// the run is over. A path that is anything but an empty regular file by
// then is left alone: the sandbox could not have written it, so the host
// did, and it is the user's.
func removePlaceholders(p *plan) {
	for _, f := range p.protected {
		if f.kind != kindMissing {
			continue
		}
		if fi, err := os.Lstat(f.path); err == nil && fi.Mode().IsRegular() && fi.Size() == 0 {
			os.Remove(f.path)
		}
	}
}
