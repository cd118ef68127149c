package sandbox

import (
	"os/user"
	"strings"
	"testing"
)

func TestPasswdEntryHome(t *testing.T) {
	passwd := "root:x:0:0:root:/root:/bin/bash\n" +
		"# a comment\n" +
		"short:x:5\n" +
		"u:x:1000:1000:U Ser,,,:/home/u:/bin/sh\r\n" +
		"nohome:x:1001:1001:::/bin/sh\n"
	for uid, want := range map[int]string{0: "/root", 1000: "/home/u", 1001: "", 5: "", 42: ""} {
		if got := passwdEntryHome([]byte(passwd), uid); got != want {
			t.Errorf("uid %d: %q, want %q", uid, got, want)
		}
	}
}

// TestHomeWithoutHOME checks the fallback against os/user, which the
// package no longer imports on Linux.
func TestHomeWithoutHOME(t *testing.T) {
	u, err := user.Current()
	if err != nil || u.HomeDir == "" || u.HomeDir == "/" {
		t.Skipf("no usable home in the password database: %v", err)
	}
	t.Setenv("HOME", "")
	got, err := homeDir()
	if want := strings.TrimRight(u.HomeDir, "/"); err != nil || got != want {
		t.Errorf("homeDir() = %q, %v; want %q", got, err, want)
	}
}
