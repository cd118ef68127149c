package sandbox

import (
	"bufio"
	"bytes"
	"errors"
	"io/fs"
	"strings"
	"syscall"
)

// The diagnosis of a sandbox that cannot start: which rows of the table's
// diagnose section (rules/linux.yaml) hold on this machine, found from
// what usernsFacts gathered, and the message that names each with its
// fixes. Pure: the facts are gathered by readUsernsFacts, from a file
// system rooted at / and a test clone the caller passes.

// The causes of the diagnose section's vocabulary (gen/diagnose.go).
const (
	causeNoBwrap          = "no-bwrap"
	causeContainerSeccomp = "container-seccomp"
	causeAppArmor         = "apparmor-userns"
	causeUsernsCloneOff   = "userns-clone-off"
	causeUsernsLimit      = "userns-limit"
)

// usernsFacts is what the diagnosis reads of the machine: the value of
// each sysctl row's switch that exists here (by file), whether this
// process runs under a seccomp filter, and, when it does, what a test
// clone with CLONE_NEWUSER returned (cloned: it was tried).
type usernsFacts struct {
	sysctls  map[string]string
	filtered bool
	cloned   bool
	cloneErr error
}

// readUsernsFacts reads the sysctl rows' switches and /proc/self/status
// from fsys (rooted at /), and runs clone, a test clone with
// CLONE_NEWUSER, only under a seccomp filter: what tells a container's
// filter apart. clone is nil where there is none to run.
func readUsernsFacts(fsys fs.FS, clone func() error) usernsFacts {
	f := usernsFacts{sysctls: map[string]string{}}
	for _, r := range diagnoseRows {
		if r.file == "" {
			continue
		}
		if data, err := fs.ReadFile(fsys, r.file); err == nil {
			f.sysctls[r.file] = strings.TrimSpace(string(data))
		}
	}
	if status, err := fs.ReadFile(fsys, "proc/self/status"); err == nil {
		sc := bufio.NewScanner(bytes.NewReader(status))
		for sc.Scan() {
			if v, ok := strings.CutPrefix(sc.Text(), "Seccomp:"); ok {
				f.filtered = strings.TrimSpace(v) == "2"
			}
		}
	}
	if f.filtered && clone != nil {
		f.cloned, f.cloneErr = true, clone()
	}
	return f
}

// blocking reports whether r, a sysctl row, holds on this machine.
func (f usernsFacts) blocking(r diagnoseRow) bool {
	v, ok := f.sysctls[r.file]
	return ok && r.file != "" && v == r.blocked
}

// causes are the rows that hold here, in table order. The container's
// filter is the cause only when no sysctl row blocks and the test clone
// was refused with EPERM: a kernel switch that blocks is the cause
// wherever the process runs.
func (f usernsFacts) causes() []diagnoseRow {
	var out []diagnoseRow
	sysctl := false
	for _, r := range diagnoseRows {
		if r.file != "" && f.blocking(r) {
			sysctl = true
		}
	}
	for _, r := range diagnoseRows {
		switch {
		case r.file != "" && f.blocking(r):
			out = append(out, r)
		case r.cause == causeContainerSeccomp && !sysctl && f.cloned && errors.Is(f.cloneErr, syscall.EPERM):
			out = append(out, r)
		}
	}
	return out
}

// lines is the row as the message's parts: what it says, then each fix,
// the first after "fix: ", with $install replaced by install.
func (r diagnoseRow) lines(install string) []string {
	out := []string{"cause: " + r.says}
	for i, fx := range r.fixes {
		fx = strings.ReplaceAll(fx, "$install", install)
		if i == 0 {
			fx = "fix: " + fx
		}
		out = append(out, fx)
	}
	return out
}

// fallbackFixes follow every cause's fixes: the remedies that do not
// depend on it, the reduced backend where this kernel can run it, then
// the policy opt-out.
func fallbackFixes() []string {
	if LandlockABI() < 1 {
		return []string{optOut()}
	}
	return []string{reducedFix(), optOut()}
}

// reducedFix names the reduced backend as a fix.
func reducedFix() string {
	return "or use the reduced backend, which keeps less than bwrap (sandtable probe lists what): sandtable run --backend landlock, Config.Backend BackendLandlock, or " + BackendVariable + "=landlock"
}

// usernsHint explains a sandbox that could not make its namespaces: each
// cause found with its fixes, then what failed said (failed, one line),
// then the fallbacks. Without a cause, the user-namespace switches this
// kernel has are listed, as a reader would check them.
func usernsHint(f usernsFacts, failed string) string {
	var parts []string
	causes := f.causes()
	for _, r := range causes {
		parts = append(parts, r.lines("")...)
	}
	if s := strings.Join(strings.Fields(failed), " "); s != "" {
		parts = append(parts, s)
	}
	if len(causes) == 0 {
		for _, r := range diagnoseRows {
			if v, ok := f.sysctls[r.file]; ok && r.file != "" {
				parts = append(parts, r.sysctl+"="+v)
			}
		}
		if f.filtered {
			parts = append(parts, "this process runs under a seccomp filter (Seccomp: 2 in /proc/self/status)")
		}
	}
	return strings.Join(append(parts, fallbackFixes()...), "; ")
}

// probeHint explains a bwrap that is installed but cannot build a sandbox
// (its stderr says how), on the machine fsys is the root of.
func probeHint(fsys fs.FS, stderr string) string {
	return usernsHint(readUsernsFacts(fsys, testClone), stderr)
}
