package sandbox

import (
	"os"
	"path"
)

// removePlaceholders removes the empty files bwrap made on the host as the
// mount points of missing protected paths (rule protect-placeholder), once
// the run is over, and releases the run's locks. A path that is anything
// but an empty regular file by then is left alone: the sandbox could not
// have written it, so the host did, and it is the user's. A placeholder
// whose directory another run still holds locked is left too, marked:
// that run may have bound it as an existing file, and removing it would
// detach the mount; the last run out removes a marked one.
func removePlaceholders(p *plan, locks dirLocks) {
	defer locks.release()
	for _, f := range p.protected {
		if f.kind == kindDir {
			continue
		}
		fi, err := os.Lstat(f.path)
		if err != nil || !fi.Mode().IsRegular() || fi.Size() != 0 || f.kind != kindMissing && !markedPlaceholder(f.path) {
			continue
		}
		if locks.exclusive(path.Dir(f.path)) {
			os.Remove(f.path)
		} else if f.kind == kindMissing {
			markPlaceholder(f.path)
		}
	}
}
