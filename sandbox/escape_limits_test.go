//go:build linux

package sandbox

import (
	"path/filepath"
	"strconv"
	"strings"
)

// The resource attempts: a command storing what it likes in memory the
// host pays for. Each is bounded: a small configured limit, and a control
// that writes a little more than it, on a tmpfs that dies with the run.

var limitAttempts = []*attempt{
	{
		name: "tmp-fill",
		what: "store 16 MiB in /tmp, a tmpfs: host memory no process of the run is charged for (limit 8 MiB)",
		setup: func(e *escEnv) {
			e.cfg.Limits.TmpSize = escTmpLimit
			e.vars["DIR"] = "/tmp"
		},
		script:  fillScript,
		escaped: fillEscaped,
		control: func(e *escEnv) escMode { return swapRule("tmp", "--tmpfs", "/tmp") },
	},
	{
		name:   "tmp-default-size",
		what:   "find /tmp larger than the table's default (1 GiB, at most a quarter of RAM)",
		script: `echo "SIZE=$(stat -f -c '%b*%S' /tmp)"`,
		escaped: func(e *escEnv, r *escResult) bool {
			_, rest, ok := strings.Cut(r.out, "SIZE=")
			if !ok {
				return false
			}
			f := strings.SplitN(strings.TrimSpace(strings.SplitN(rest, "\n", 2)[0]), "*", 2)
			if len(f) != 2 {
				return false
			}
			blocks, _ := strconv.ParseUint(f[0], 10, 64)
			bsize, _ := strconv.ParseUint(f[1], 10, 64)
			want, _ := strconv.ParseUint(limitDefaults()[limitTmpSize], 10, 64)
			return blocks*bsize > want
		},
		control: func(e *escEnv) escMode { return swapRule("tmp", "--tmpfs", "/tmp") },
	},
	{
		name: "shm-fill",
		what: "store 16 MiB in /dev/shm (limit 4 MiB)",
		setup: func(e *escEnv) {
			e.cfg.Limits.ShmSize = escShmLimit
			e.vars["DIR"] = "/dev/shm"
		},
		script:  fillScript,
		escaped: fillEscaped,
		// Without its own tmpfs /dev/shm is a directory of --dev's, which
		// dev-read-only makes read-only: both go.
		control: func(e *escEnv) escMode { return dropRules("shm", "dev-read-only") },
	},
	{
		name:    "dev-store",
		what:    "store a file in /dev, --dev's tmpfs (half of RAM)",
		script:  `echo data > /dev/stored && echo STORED=ok`,
		escaped: func(e *escEnv, r *escResult) bool { return strings.Contains(r.out, "STORED=ok") },
		control: func(e *escEnv) escMode { return dropRules("dev-read-only") },
	},
	{
		name: "hidden-dir-store",
		what: "store a file in the tmpfs that hides a directory",
		setup: func(e *escEnv) {
			hid := e.mkdir(filepath.Join(e.out, "hid"))
			e.cfg.Hidden = []string{hid}
			e.vars["HID"] = hid
		},
		script:  `echo data > "$HID/stored" && mkdir "$HID/d" && echo STORED=ok`,
		escaped: func(e *escEnv, r *escResult) bool { return strings.Contains(r.out, "STORED=ok") },
		control: func(e *escEnv) escMode { return dropRules("hide-dir-read-only") },
	},
	{
		name: "hidden-ancestor-store",
		what: "store a file in a hidden directory between / and the workspace, where the workspace's mount point is",
		setup: func(e *escEnv) {
			e.cfg.Hidden = []string{e.dir}
			e.vars["HID"] = e.dir
		},
		script:  `echo data > "$HID/stored" && echo STORED=ok`,
		escaped: func(e *escEnv, r *escResult) bool { return strings.Contains(r.out, "STORED=ok") },
		control: func(e *escEnv) escMode { return dropRules("hide-dir-read-only") },
	},
}
