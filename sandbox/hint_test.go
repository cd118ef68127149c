package sandbox

import (
	"errors"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"
)

func TestInstallHint(t *testing.T) {
	for _, tc := range []struct {
		release, want string
	}{
		{"ID=debian\n", "sudo apt-get install bubblewrap"},
		{`ID="ubuntu"` + "\nID_LIKE=debian\n", "sudo apt-get install bubblewrap"},
		{"ID=linuxmint\nID_LIKE=\"ubuntu debian\"\n", "sudo apt-get install bubblewrap"},
		{"ID=fedora\n", "sudo dnf install bubblewrap"},
		{"ID=\"rocky\"\nID_LIKE=\"rhel centos fedora\"\n", "sudo dnf install bubblewrap"},
		{"ID=arch\n", "sudo pacman -S bubblewrap"},
		{"ID=endeavouros\nID_LIKE=arch\n", "sudo pacman -S bubblewrap"},
		{"ID=alpine\n", "sudo apk add bubblewrap"},
		{"ID=\"opensuse-tumbleweed\"\nID_LIKE=\"opensuse suse\"\n", "sudo zypper install bubblewrap"},
		{"ID=nixos\n", "install it: bubblewrap, with your distribution's package manager"},
		{"", "install it: bubblewrap, with your distribution's package manager"},
	} {
		got := installHint(fstest.MapFS{"etc/os-release": {Data: []byte(tc.release)}})
		if !strings.Contains(got, tc.want) || !strings.Contains(got, PolicyVariable+"=off") {
			t.Errorf("os-release %q: %q, want %q and the opt-out", tc.release, got, tc.want)
		}
	}
	// No /etc/os-release: the /usr/lib fallback, then the generic line.
	got := installHint(fstest.MapFS{"usr/lib/os-release": {Data: []byte("ID=alpine")}})
	if !strings.Contains(got, "apk add") {
		t.Errorf("usr/lib fallback: %q", got)
	}
	if got := installHint(fstest.MapFS{}); !strings.Contains(got, "package manager") {
		t.Errorf("no os-release: %q", got)
	}
}

func TestProbeHint(t *testing.T) {
	stderr := "bwrap: setting up uid map: Permission denied\n"
	ubuntu := fstest.MapFS{
		"proc/sys/kernel/apparmor_restrict_unprivileged_userns": {Data: []byte("1\n")},
		"proc/sys/user/max_user_namespaces":                     {Data: []byte("63457\n")},
	}
	got := probeHint(ubuntu, stderr)
	for _, want := range []string{
		"cause: AppArmor restricts unprivileged user namespaces",
		"fix: give bwrap an AppArmor profile that allows them",
		"or lift the restriction for every program: sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0",
		"bwrap: setting up uid map: Permission denied",
		PolicyVariable + "=off",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("hint %q lacks %q", got, want)
		}
	}
	// The profile, the narrow fix, before the sysctl, the broad one.
	if strings.Index(got, "apparmor_parser") > strings.Index(got, "apparmor_restrict_unprivileged_userns=0") {
		t.Errorf("the broad fix before the narrow one: %q", got)
	}
	if strings.Contains(got, "max_user_namespaces") {
		t.Errorf("named a switch that is not blocking: %q", got)
	}

	debian := fstest.MapFS{
		"proc/sys/kernel/unprivileged_userns_clone": {Data: []byte("0\n")},
		"proc/sys/user/max_user_namespaces":         {Data: []byte("0\n")},
	}
	got = probeHint(debian, "")
	for _, want := range []string{"sudo sysctl -w kernel.unprivileged_userns_clone=1", "sudo sysctl -w user.max_user_namespaces=65536"} {
		if !strings.Contains(got, want) {
			t.Errorf("hint %q lacks %q", got, want)
		}
	}
	if strings.Contains(got, "apparmor") {
		t.Errorf("named a switch this kernel does not have: %q", got)
	}

	// Nothing known: bwrap's words, the switches there are, and the
	// opt-out, on one line.
	got = probeHint(fstest.MapFS{"proc/sys/user/max_user_namespaces": {Data: []byte("100\n")}}, "bwrap: Unknown option --disable-userns\n")
	if got != "bwrap: Unknown option --disable-userns; user.max_user_namespaces=100; "+strings.Join(fallbackFixes(), "; ") {
		t.Errorf("got %q", got)
	}
}

// TestDiagnoseContainer: a container's seccomp filter is the cause only
// when the process runs under a filter, a test clone was refused with
// EPERM, and no sysctl row blocks; each case with the control that
// changes one of the three.
func TestDiagnoseContainer(t *testing.T) {
	status := func(mode string) *fstest.MapFile {
		return &fstest.MapFile{Data: []byte("Name:\tx\nSeccomp:\t" + mode + "\nSeccomp_filters:\t1\n")}
	}
	allow := &fstest.MapFile{Data: []byte("63457\n")}
	const cause = "cause: this container's seccomp filter"
	for _, c := range []struct {
		name  string
		fsys  fstest.MapFS
		clone error
		want  bool
	}{
		{"docker", fstest.MapFS{"proc/self/status": status("2"), "proc/sys/user/max_user_namespaces": allow}, syscall.EPERM, true},
		{"no filter", fstest.MapFS{"proc/self/status": status("0"), "proc/sys/user/max_user_namespaces": allow}, syscall.EPERM, false},
		{"clone works", fstest.MapFS{"proc/self/status": status("2"), "proc/sys/user/max_user_namespaces": allow}, nil, false},
		{"clone ENOSPC", fstest.MapFS{"proc/self/status": status("2"), "proc/sys/user/max_user_namespaces": allow}, syscall.ENOSPC, false},
		{"limit blocks", fstest.MapFS{"proc/self/status": status("2"), "proc/sys/user/max_user_namespaces": {Data: []byte("0\n")}}, syscall.EPERM, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			tried := false
			clone := func() error { tried = true; return c.clone }
			got := usernsHint(readUsernsFacts(c.fsys, clone), "bwrap: No permissions to create new namespace")
			if strings.Contains(got, cause) != c.want {
				t.Errorf("container cause %v, want %v: %q", !c.want, c.want, got)
			}
			if c.want && !strings.Contains(got, "fix: run the container with a seccomp profile") {
				t.Errorf("lacks the profile fix: %q", got)
			}
			if c.want && strings.Contains(got, "max_user_namespaces") {
				t.Errorf("names a sysctl that allows: %q", got)
			}
			if tried != (c.name != "no filter") {
				t.Errorf("test clone tried %v", tried)
			}
		})
	}
}

func TestUnavailableError(t *testing.T) {
	err := error(&unavailableError{reason: "bwrap not found on PATH", hint: "install it: x"})
	if !errors.Is(err, ErrUnavailable) {
		t.Error("not ErrUnavailable")
	}
	if got := err.Error(); got != "sandbox: unavailable: bwrap not found on PATH; install it: x" {
		t.Errorf("got %q", got)
	}
}

// TestDiagnoseCauses: every cause of the table's diagnose section is one
// this package finds, and each it finds has a row.
func TestDiagnoseCauses(t *testing.T) {
	known := map[string]bool{causeNoBwrap: false, causeContainerSeccomp: false, causeAppArmor: false, causeUsernsCloneOff: false, causeUsernsLimit: false}
	for _, r := range diagnoseRows {
		if _, ok := known[r.cause]; !ok {
			t.Errorf("row %s: cause %q is found by nothing here", r.rule, r.cause)
		}
		known[r.cause] = true
		if (r.file != "") != (r.cause == causeAppArmor || r.cause == causeUsernsCloneOff || r.cause == causeUsernsLimit) {
			t.Errorf("row %s: sysctl %q for cause %s", r.rule, r.sysctl, r.cause)
		}
	}
	for c, ok := range known {
		if !ok {
			t.Errorf("cause %s has no row", c)
		}
	}
}
