package sandbox

import (
	"bufio"
	"bytes"
	"io/fs"
	"strings"
)

// unavailableError is a sandbox that cannot be applied on this machine. The
// message carries what to do about it, because the person reading it is
// usually an operator who did not write the code that spawned.
type unavailableError struct {
	reason string
	hint   string
}

func (e *unavailableError) Error() string {
	msg := "sandbox: unavailable: " + e.reason
	if e.hint != "" {
		msg += "; " + e.hint
	}
	return msg
}

func (e *unavailableError) Unwrap() error { return ErrUnavailable }

// optOut ends every hint: the one remedy that needs no root, spelled so it
// can be pasted.
func optOut() string {
	return "or set " + PolicyVariable + "=off to run without a sandbox"
}

// installHint names the command that installs bubblewrap on the distribution
// /etc/os-release describes. fsys is rooted at "/" (os.DirFS("/") in
// production), so tests can feed any release file.
func installHint(fsys fs.FS) string {
	ids := osReleaseIDs(fsys)
	for _, id := range ids {
		if cmd := installCommand(id); cmd != "" {
			return "install it: " + cmd + "; " + optOut()
		}
	}
	return "install bubblewrap with your distribution's package manager; " + optOut()
}

func installCommand(id string) string {
	switch {
	case id == "debian" || id == "ubuntu":
		return "sudo apt-get install bubblewrap"
	case id == "fedora" || id == "rhel" || id == "centos":
		return "sudo dnf install bubblewrap"
	case id == "arch":
		return "sudo pacman -S bubblewrap"
	case id == "alpine":
		return "sudo apk add bubblewrap"
	case id == "suse" || strings.HasPrefix(id, "opensuse") || id == "sles":
		return "sudo zypper install bubblewrap"
	}
	return ""
}

// osReleaseIDs returns ID, then the words of ID_LIKE, so a derivative
// (Linux Mint: ID=linuxmint, ID_LIKE="ubuntu debian") finds its parent.
func osReleaseIDs(fsys fs.FS) []string {
	data, err := fs.ReadFile(fsys, "etc/os-release")
	if err != nil {
		// os-release(5): /usr/lib/os-release is the fallback.
		if data, err = fs.ReadFile(fsys, "usr/lib/os-release"); err != nil {
			return nil
		}
	}
	var id string
	var like []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		key, val, ok := strings.Cut(strings.TrimSpace(sc.Text()), "=")
		if !ok {
			continue
		}
		val = strings.ToLower(strings.Trim(val, `"'`))
		switch key {
		case "ID":
			id = val
		case "ID_LIKE":
			like = strings.Fields(val)
		}
	}
	if id == "" {
		return like
	}
	return append([]string{id}, like...)
}

// usernsSysctls are the kernel switches that block unprivileged user
// namespaces, with the value that blocks and the command that unblocks.
var usernsSysctls = []struct {
	file, name, blocked, fix string
}{
	{"proc/sys/kernel/apparmor_restrict_unprivileged_userns", "kernel.apparmor_restrict_unprivileged_userns", "1",
		"sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0"},
	{"proc/sys/kernel/unprivileged_userns_clone", "kernel.unprivileged_userns_clone", "0",
		"sudo sysctl -w kernel.unprivileged_userns_clone=1"},
	{"proc/sys/user/max_user_namespaces", "user.max_user_namespaces", "0",
		"sudo sysctl -w user.max_user_namespaces=65536"},
}

// probeHint explains a bwrap that is installed but cannot build a sandbox:
// its own stderr first (it says what failed), then the user-namespace
// switches that exist on this kernel and the commands that unblock the ones
// that are blocking.
func probeHint(fsys fs.FS, stderr string) string {
	var parts []string
	if s := strings.Join(strings.Fields(stderr), " "); s != "" {
		parts = append(parts, s)
	}
	var fixes []string
	for _, s := range usernsSysctls {
		data, err := fs.ReadFile(fsys, s.file)
		if err != nil {
			continue
		}
		v := strings.TrimSpace(string(data))
		parts = append(parts, s.name+"="+v)
		if v == s.blocked {
			fixes = append(fixes, s.fix)
		}
	}
	if len(fixes) > 0 {
		parts = append(parts, "fix: "+strings.Join(fixes, " && "))
	}
	return strings.Join(append(parts, optOut()), "; ")
}
