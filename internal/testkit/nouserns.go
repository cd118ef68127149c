package testkit

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
)

// The simulations of places without user namespaces (internal/nouserns):
// a container under Docker's default seccomp profile, and a kernel whose
// user.max_user_namespaces is 0.
const (
	SimDocker   = "docker"
	SimHardened = "hardened"
)

// BuildNoUserns builds the simulations' launcher as dir/nouserns, mode
// 0755, and returns its path. dir must let the users a test runs it as in
// (0755); the caller removes it.
func BuildNoUserns(dir string) (string, error) {
	bin := filepath.Join(dir, "nouserns")
	build := exec.Command("go", "build", "-o", bin, "github.com/sandtable/sandtable/internal/nouserns")
	if out, err := build.CombinedOutput(); err != nil {
		return "", &buildError{out: string(out), err: err}
	}
	return bin, os.Chmod(bin, 0o755)
}

type buildError struct {
	out string
	err error
}

func (e *buildError) Error() string { return e.err.Error() + ": " + e.out }

// SimArgs is the launcher's argv (program first) that runs argv in the
// simulation sim; uid and gid, when not -1, are the user the hardened
// simulation runs it as (a root caller only). Under sim docker the caller
// sets the user itself (SysProcAttr.Credential).
func SimArgs(launcher, sim string, uid, gid int, argv ...string) []string {
	args := []string{launcher, "-env", sim}
	if sim == SimHardened && uid >= 0 {
		args = append(args, "-uid", strconv.Itoa(uid), "-gid", strconv.Itoa(gid))
	}
	return append(append(args, "--"), argv...)
}
