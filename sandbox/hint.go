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

// installHint is the no-bwrap diagnosis (rules/linux.yaml, diagnose):
// its fixes with $install the command that installs bubblewrap on the
// distribution /etc/os-release describes, then the fixes that follow
// every cause. fsys is rooted at "/" (os.DirFS("/") in production), so
// tests can feed any release file.
func installHint(fsys fs.FS) string {
	install := "bubblewrap, with your distribution's package manager"
	for _, id := range osReleaseIDs(fsys) {
		if cmd := installCommand(id); cmd != "" {
			install = cmd
			break
		}
	}
	var parts []string
	for _, r := range diagnoseRows {
		if r.cause == causeNoBwrap {
			parts = append(parts, r.lines(install)...)
		}
	}
	return strings.Join(append(parts, fallbackFixes()...), "; ")
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
