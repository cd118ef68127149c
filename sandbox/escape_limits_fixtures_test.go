//go:build linux

package sandbox

import (
	"strconv"
	"strings"
)

// The fixtures of the resource attempts (escape_limits_test.go): the
// limits and sizes, the fill snippet, and the check that reads what it
// stored.

const (
	escTmpLimit = 8 << 20  // Config.Limits.TmpSize for tmp-fill
	escShmLimit = 4 << 20  // Config.Limits.ShmSize for shm-fill
	escOverfill = 16 << 20 // what the fills try to store: 2x and 4x the limits
)

// fillScript stores escOverfill bytes in DIR and prints STORED=N, the
// bytes that landed.
const fillScript = `head -c ` + "16777216" + ` /dev/zero 2>&1 > "$DIR/fill"; echo "STORED=$(stat -c %s "$DIR/fill")"`

// stored is the STORED=N a fill printed, -1 if none.
func stored(out string) int64 {
	_, rest, ok := strings.Cut(out, "STORED=")
	if !ok {
		return -1
	}
	n, err := strconv.ParseInt(strings.TrimSpace(strings.SplitN(rest, "\n", 2)[0]), 10, 64)
	if err != nil {
		return -1
	}
	return n
}

// fillEscaped reports whether the whole fill landed; a fill that did not
// must have stopped at the tmpfs's end (ENOSPC) with at most the limit
// stored, not for some other reason.
func fillEscaped(e *escEnv, r *escResult) bool {
	n := stored(r.out)
	if n == escOverfill {
		return true
	}
	if limit := e.cfg.Limits.TmpSize + e.cfg.Limits.ShmSize; n < 0 || n > limit || !strings.Contains(r.out, "No space left on device") {
		e.t.Errorf("the fill stopped at %d bytes (limit %d), not with ENOSPC: %s", n, limit, r.out)
	}
	return false
}
