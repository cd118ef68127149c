package sandbox

import (
	"errors"
	"strings"
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
		{"ID=nixos\n", "install bubblewrap with your distribution's package manager"},
		{"", "install bubblewrap with your distribution's package manager"},
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
		"bwrap: setting up uid map: Permission denied",
		"kernel.apparmor_restrict_unprivileged_userns=1",
		"user.max_user_namespaces=63457",
		"fix: sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0",
		PolicyVariable + "=off",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("hint %q lacks %q", got, want)
		}
	}
	if strings.Contains(got, "max_user_namespaces=65536") {
		t.Errorf("suggested a fix for a switch that is not blocking: %q", got)
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

	// Nothing known: bwrap's words and the opt-out, on one line.
	got = probeHint(fstest.MapFS{}, "bwrap: Unknown option --disable-userns\n")
	if got != "bwrap: Unknown option --disable-userns; or set "+PolicyVariable+"=off to run without a sandbox" {
		t.Errorf("got %q", got)
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
