package main

import (
	"strings"
	"testing"
)

// TestRunTmpSize: --tmp-size bounds the private /tmp, and a write past it
// fails inside with ENOSPC; without the flag the same 2 MiB fit (the
// default is 1 GiB, or a quarter of RAM).
func TestRunTmpSize(t *testing.T) {
	requireBwrap(t)
	e := newEnv(t)
	fill := []string{"sh", "-c", `head -c 2097152 /dev/zero > /tmp/fill && echo FITS`}
	r := e.run(t, "", append([]string{"run", "--tmp-size", "1M", "--"}, fill...)...)
	if r.code == 0 || strings.Contains(r.stdout, "FITS") || !strings.Contains(r.stderr, "No space left on device") {
		t.Errorf("--tmp-size 1M, 2 MiB written: exit %d, stdout %q, stderr %q; want ENOSPC", r.code, r.stdout, r.stderr)
	}
	r = e.run(t, "", append([]string{"run", "--"}, fill...)...)
	if r.code != 0 || !strings.Contains(r.stdout, "FITS") {
		t.Errorf("default /tmp, 2 MiB written: exit %d, stdout %q, stderr %q; want them stored", r.code, r.stdout, r.stderr)
	}
	r = e.run(t, "", "run", "--shm-size", "1x", "--", "true")
	if r.code != 2 || !strings.Contains(r.stderr, "shm-size") || !strings.Contains(r.stderr, "bad limit") {
		t.Errorf("--shm-size 1x: exit %d, stderr %q; want a usage error", r.code, r.stderr)
	}
}
