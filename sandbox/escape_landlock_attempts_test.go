//go:build linux

package sandbox

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// llAttempts are the reduced backend's escape attempts (see
// escape_landlock_test.go): the files, the network, processes,
// privileges, and the protected paths.
var llAttempts = []*llAttempt{
	// ---- files ----
	{name: "hidden-file", rows: []string{"landlock-hide"}, script: `cat "$SSH_KEY"`,
		setup: func(e *llEnv) { e.secret = e.sshSecret }},
	{name: "hidden-through-symlink", rows: []string{"landlock-hide"}, script: `cat key`,
		setup: func(e *llEnv) {
			e.secret = e.sshSecret
			if err := os.Symlink(e.sshKey, filepath.Join(e.ws, "key")); err != nil {
				e.t.Fatal(err)
			}
		}},
	{name: "hidden-through-hard-link", script: `ln "$SSH_KEY" hard && cat hard`,
		setup: func(e *llEnv) { e.secret = e.sshSecret }},
	{name: "hidden-made-during-run", rows: []string{"landlock-hide"}, script: `sleep 1; cat "$HOME/.ssh/later"`,
		setup: func(e *llEnv) {
			e.secret = escToken("later")
			later := filepath.Join(e.home, ".ssh", "later")
			e.before = func() {
				os.Remove(later)
				go func() {
					time.Sleep(300 * time.Millisecond)
					e.escWrite(e.t, later, e.secret, 0o600)
				}()
			}
			e.defer_(func() { os.Remove(later) })
		}},
	{name: "hidden-names-listed", script: `ls "$HOME/.ssh"`, lost: "hide-dir",
		setup: func(e *llEnv) {
			e.secret = escToken("name")
			p := filepath.Join(e.home, ".ssh", e.secret)
			e.escWrite(e.t, p, "x", 0o600)
			e.defer_(func() { os.Remove(p) })
		}},
	{name: "other-workspace-cache", rows: []string{"landlock-hide-cache-root"}, script: `cat "$OTHER"; ls "$CACHES"`,
		setup: func(e *llEnv) {
			root, err := CacheRoot()
			if err != nil || root == "" {
				e.t.Fatalf("CacheRoot: %q, %v", root, err)
			}
			e.secret = escToken("cache")
			dir := filepath.Join(root, "ws-other-"+e.a.name, "go-mod")
			// Each directory made here up to the home is the pass user's.
			for d := dir; strings.HasPrefix(d, e.home+"/"); d = filepath.Dir(d) {
				defer e.chown(e.t, d)
			}
			if err := os.MkdirAll(dir, 0o700); err != nil {
				e.t.Fatal(err)
			}
			e.vars["OTHER"] = filepath.Join(dir, "module.zip")
			e.vars["CACHES"] = root
			e.escWrite(e.t, e.vars["OTHER"], e.secret, 0o600)
			e.defer_(func() { os.RemoveAll(filepath.Join(root, "ws-other-"+e.a.name)) })
		}},
	{name: "redacted-file", rows: []string{"landlock-redacted"}, script: `cat "$HOME/.npmrc"`,
		setup: func(e *llEnv) {
			e.secret = escToken("npm")
			p := filepath.Join(e.home, ".npmrc")
			old, err := os.ReadFile(p)
			e.escWrite(e.t, p, "//registry.npmjs.org/:_authToken="+e.secret+"\n", 0o600)
			e.defer_(func() {
				if err == nil {
					os.WriteFile(p, old, 0o600)
				} else {
					os.Remove(p)
				}
			})
		}},
	{name: "redacted-copy", rows: []string{"landlock-redacted"}, script: `cat "$GIT_CONFIG_GLOBAL" "$HOME/.gitconfig" 2>&1; git config --global --get-all url.https://github.com/.insteadof 2>&1 || true`,
		setup: func(e *llEnv) {
			e.secret = escToken("gitcred")
			p := filepath.Join(e.home, ".gitconfig")
			e.escWrite(e.t, p, "[user]\n\tname = t\n[url \"https://u:"+e.secret+"@github.com/\"]\n\tinsteadOf = https://github.com/\n", 0o644)
			e.defer_(func() { os.Remove(p) })
		}},
	{name: "write-outside", script: `echo "$TOKEN" > "$OUT/f"; cat "$OUT/f"`,
		setup: func(e *llEnv) { e.secret = escToken("out"); e.vars["TOKEN"] = e.secret }},
	{name: "write-home", script: `echo "$TOKEN" > "$HOME/.esc-ll"; cat "$HOME/.esc-ll"`,
		setup: func(e *llEnv) {
			e.secret = escToken("home")
			e.vars["TOKEN"] = e.secret
			e.defer_(func() { os.Remove(filepath.Join(e.home, ".esc-ll")) })
		}},
	{name: "truncate-outside", script: `truncate -s 0 "$OUT/t"`,
		setup: func(e *llEnv) {
			p := filepath.Join(e.out, "t")
			e.before = func() { e.escWrite(e.t, p, "kept\n", 0o644) }
		},
		escaped: func(e *llEnv, _ string) bool {
			fi, err := os.Stat(filepath.Join(e.out, "t"))
			return err == nil && fi.Size() == 0
		}},
	{name: "read-host-tmp", rows: []string{"landlock-private-dirs"}, script: `cat "$HOSTTMP/secret"`,
		setup: func(e *llEnv) { e.hostSecretIn("/tmp") }},
	{name: "read-host-var-tmp", rows: []string{"landlock-private-dirs"}, script: `cat "$HOSTTMP/secret"`,
		setup: func(e *llEnv) { e.hostSecretIn("/var/tmp") }},
	{name: "write-host-tmp", script: `f=/tmp/sandtable-esc-ll-$$; echo "$TOKEN" > $f; cat $f; rm -f $f`,
		setup: func(e *llEnv) { e.secret = escToken("tmpw"); e.vars["TOKEN"] = e.secret }},
	{name: "hidden-through-victim-fd", script: `cat /proc/$VICTIM/fd/3`,
		setup: func(e *llEnv) {
			e.secret = e.sshSecret
			e.vars["VICTIM"] = strconv.Itoa(llVictim(e, os.Environ(), e.sshKey))
		}},
	{name: "open-device", rows: []string{"landlock-private-dirs"}, root: true, script: `exec 3<"$DISK" && echo "$TOKEN"`,
		setup: func(e *llEnv) {
			e.vars["DISK"] = blockDevice()
			if e.vars["DISK"] == "" {
				e.t.Skip("no device here that root may open")
			}
			e.secret = escToken("disk")
			e.vars["TOKEN"] = e.secret
		}},
	{name: "write-proc-sys", root: true, simCtl: true,
		script: `v=$(cat /proc/sys/kernel/printk_ratelimit) && echo "$v" > /proc/sys/kernel/printk_ratelimit && echo "$TOKEN"`,
		setup:  func(e *llEnv) { e.secret = escToken("sysctl"); e.vars["TOKEN"] = e.secret }},
	{name: "setuid-file", script: `cp /bin/true ./suid && chmod u+s ./suid && [ -u ./suid ] && echo "$TOKEN"`,
		setup: func(e *llEnv) { e.secret = escToken("suid"); e.vars["TOKEN"] = e.secret }},

	// ---- the network ----
	{name: "host-tcp", rows: []string{"landlock-net-proxy"}, needs: []string{"python3"},
		script: `"$PY" -c 'import socket,os; s=socket.create_connection(("127.0.0.1", int(os.environ["PORT"])), 3); print(s.recv(100).decode())'`,
		setup: func(e *llEnv) {
			e.secret = escToken("tcp")
			ln, err := net.Listen("tcp4", "127.0.0.1:0")
			if err != nil {
				e.t.Fatal(err)
			}
			llServe(e, ln, e.secret)
			e.vars["PORT"] = strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
		}},
	{name: "host-tcp-network-off", rows: []string{"landlock-net-off"}, needs: []string{"python3"},
		script: `"$PY" -c 'import socket,os; s=socket.create_connection(("127.0.0.1", int(os.environ["PORT"])), 3); print(s.recv(100).decode())'`,
		setup: func(e *llEnv) {
			e.cfg.Network = Network{Mode: NetworkOff}
			e.secret = escToken("tcpoff")
			ln, err := net.Listen("tcp4", "127.0.0.1:0")
			if err != nil {
				e.t.Fatal(err)
			}
			llServe(e, ln, e.secret)
			e.vars["PORT"] = strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
		}},
	{name: "host-tcp-mptcp", rows: []string{"landlock-plain-tcp"}, needs: []string{"python3"},
		script: `"$PY" -c 'import socket,os; s=socket.socket(socket.AF_INET, socket.SOCK_STREAM, 262); s.settimeout(3); s.connect(("127.0.0.1", int(os.environ["PORT"]))); print(s.recv(100).decode())'`,
		setup: func(e *llEnv) {
			e.secret = escToken("mptcp")
			ln, err := net.Listen("tcp4", "127.0.0.1:0")
			if err != nil {
				e.t.Fatal(err)
			}
			llServe(e, ln, e.secret)
			e.vars["PORT"] = strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
		}},
	{name: "host-udp", rows: []string{"landlock-tcp-only"}, needs: []string{"python3"},
		script: `"$PY" -c 'import socket,os; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.settimeout(3); s.sendto(b"x", ("127.0.0.1", int(os.environ["PORT"]))); print(s.recv(100).decode())'`,
		setup: func(e *llEnv) {
			e.secret = escToken("udp")
			pc, err := net.ListenPacket("udp4", "127.0.0.1:0")
			if err != nil {
				e.t.Fatal(err)
			}
			e.defer_(func() { pc.Close() })
			go func() {
				b := make([]byte, 64)
				for {
					_, addr, err := pc.ReadFrom(b)
					if err != nil {
						return
					}
					pc.WriteTo([]byte(e.secret), addr)
				}
			}()
			e.vars["PORT"] = strconv.Itoa(pc.LocalAddr().(*net.UDPAddr).Port)
		}},
	{name: "listen-tcp", rows: []string{"landlock-net-proxy"}, needs: []string{"python3"},
		script: `"$PY" -c 'import socket,os; s=socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(); print(os.environ["TOKEN"])'`,
		setup:  func(e *llEnv) { e.secret = escToken("listen"); e.vars["TOKEN"] = e.secret }},
	{name: "host-unix-socket", rows: []string{"landlock-refuse-unix-socket"}, needs: []string{"python3"},
		script: `"$PY" -c 'import socket,os; s=socket.socket(socket.AF_UNIX); s.connect(os.environ["SOCK"]); print(s.recv(100).decode())'`,
		setup: func(e *llEnv) {
			e.secret = escToken("unix")
			p := filepath.Join(e.out, "s.sock")
			ln, err := net.Listen("unix", p)
			if err != nil {
				e.t.Fatal(err)
			}
			os.Chmod(p, 0o777)
			llServe(e, ln, e.secret)
			e.vars["SOCK"] = p
		}},
	{name: "host-abstract-socket", rows: []string{"landlock-refuse-unix-socket", "landlock-scopes"}, needs: []string{"python3"},
		script: `"$PY" -c 'import socket,os; s=socket.socket(socket.AF_UNIX); s.connect("\0"+os.environ["NAME"]); print(s.recv(100).decode())'`,
		setup: func(e *llEnv) {
			e.secret = escToken("abstract")
			name := "sandtable-esc-" + strings.ToLower(e.secret[len(e.secret)-8:])
			ln, err := net.Listen("unix", "@"+name)
			if err != nil {
				e.t.Fatal(err)
			}
			llServe(e, ln, e.secret)
			e.vars["NAME"] = name
		}},

	// ---- processes ----
	{name: "signal-outside", rows: []string{"landlock-scopes"}, script: `kill -0 "$VICTIM" && echo "$TOKEN"`,
		setup: func(e *llEnv) {
			e.secret = escToken("signal")
			e.vars["TOKEN"] = e.secret
			e.vars["VICTIM"] = strconv.Itoa(llVictim(e, os.Environ(), ""))
		}},
	{name: "environ-outside", script: `tr '\0' '\n' < /proc/$VICTIM/environ`,
		setup: func(e *llEnv) {
			e.secret = escToken("environ")
			e.vars["VICTIM"] = strconv.Itoa(llVictim(e, append(os.Environ(), "VICTIM_SECRET="+e.secret), ""))
		}},
	{name: "cmdline-outside", script: `tr '\0' ' ' < /proc/$VICTIM/cmdline`, lost: "proc",
		setup: func(e *llEnv) {
			e.secret = escToken("cmdline")
			e.vars["VICTIM"] = strconv.Itoa(llVictim(e, os.Environ(), "", e.secret))
		}},
	{name: "outlive-the-run", script: `setsid bash -c 'sleep 30; :' "$MARK" </dev/null >/dev/null 2>&1 & sleep 0.2`,
		setup: func(e *llEnv) {
			mark := escToken("left")
			e.vars["MARK"] = mark
			e.defer_(func() { leftover(mark) })
		},
		escaped: func(e *llEnv, _ string) bool {
			time.Sleep(100 * time.Millisecond)
			return leftover(e.vars["MARK"])
		}},

	// ---- privileges ----
	{name: "capabilities", root: true, script: `awk '/^CapEff/ && $2 != "0000000000000000" { print ENVIRON["TOKEN"] }' /proc/self/status`,
		setup: func(e *llEnv) { e.secret = escToken("caps"); e.vars["TOKEN"] = e.secret }},
	{name: "user-namespace", rows: []string{"landlock-refuse-unshare"}, simCtl: true, needs: []string{"unshare"}, script: `unshare -U true && echo "$TOKEN"`,
		setup: func(e *llEnv) { e.secret = escToken("userns"); e.vars["TOKEN"] = e.secret }},
	{name: "mount", root: true, simCtl: true, script: `mount -t tmpfs none "$OUT" && echo "$TOKEN"; umount "$OUT" 2>/dev/null`,
		setup: func(e *llEnv) { e.secret = escToken("mount"); e.vars["TOKEN"] = e.secret }},
	{name: "keyring", needs: []string{"python3"},
		script: `"$PY" -c 'import ctypes,os; r=ctypes.CDLL(None, use_errno=True).syscall(250, 0, -3, 0); print(os.environ["TOKEN"] if r >= 0 else "refused")'`,
		setup:  func(e *llEnv) { e.secret = escToken("key"); e.vars["TOKEN"] = e.secret }},
	{name: "stripped-env", script: `echo "token=$GITHUB_TOKEN"`, rawEnvCtl: true,
		setup: func(e *llEnv) {
			e.secret = escToken("env")
			old, had := os.LookupEnv("GITHUB_TOKEN")
			e.before = func() { os.Setenv("GITHUB_TOKEN", e.secret) }
			e.after = func() {
				if had {
					os.Setenv("GITHUB_TOKEN", old)
				} else {
					os.Unsetenv("GITHUB_TOKEN")
				}
			}
		},
		escaped: func(e *llEnv, out string) bool { return strings.Contains(out, "token="+e.secret) }},

	// ---- the protected paths ----
	{name: "git-config", script: `echo "[core] fsmonitor = $TOKEN" >> .git/config`,
		setup: func(e *llEnv) {
			e.secret = escToken("gitconfig")
			e.vars["TOKEN"] = e.secret
			e.mkdirAs(filepath.Join(e.ws, ".git", "hooks"))
			e.before = func() { e.escWrite(e.t, filepath.Join(e.ws, ".git", "config"), "[core]\n", 0o644) }
		},
		escaped: func(e *llEnv, _ string) bool {
			b, _ := os.ReadFile(filepath.Join(e.ws, ".git", "config"))
			return strings.Contains(string(b), e.secret)
		}},
	{name: "git-hook", script: `printf '#!/bin/sh\necho %s\n' "$TOKEN" > .git/hooks/pre-commit`,
		setup: func(e *llEnv) {
			e.secret = escToken("hook")
			e.vars["TOKEN"] = e.secret
			e.mkdirAs(filepath.Join(e.ws, ".git", "hooks"))
			e.before = func() { os.Remove(filepath.Join(e.ws, ".git", "hooks", "pre-commit")) }
		},
		escaped: func(e *llEnv, _ string) bool {
			b, _ := os.ReadFile(filepath.Join(e.ws, ".git", "hooks", "pre-commit"))
			return strings.Contains(string(b), e.secret)
		}},
	{name: "vscode-tasks", script: `mkdir -p .vscode && echo "$TOKEN" > .vscode/tasks.json`,
		setup: func(e *llEnv) {
			e.secret = escToken("vscode")
			e.vars["TOKEN"] = e.secret
			e.before = func() { os.RemoveAll(filepath.Join(e.ws, ".vscode")) }
		},
		escaped: func(e *llEnv, _ string) bool {
			b, _ := os.ReadFile(filepath.Join(e.ws, ".vscode", "tasks.json"))
			return strings.Contains(string(b), e.secret)
		}},
	{name: "git-dir-moved", script: `mv .git .git-old && mkdir -p .git && echo "[core] fsmonitor = $TOKEN" > .git/config`,
		setup: func(e *llEnv) {
			e.secret = escToken("gitmove")
			e.vars["TOKEN"] = e.secret
			e.before = func() {
				os.RemoveAll(filepath.Join(e.ws, ".git-old"))
				os.RemoveAll(filepath.Join(e.ws, ".git"))
				e.mkdirAs(filepath.Join(e.ws, ".git", "hooks"))
				e.escWrite(e.t, filepath.Join(e.ws, ".git", "config"), "[core]\n", 0o644)
			}
		},
		escaped: func(e *llEnv, _ string) bool {
			b, _ := os.ReadFile(filepath.Join(e.ws, ".git", "config"))
			return strings.Contains(string(b), e.secret)
		}},
}

func (e *llEnv) mkdirAs(dir string) {
	e.t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		e.t.Fatal(err)
	}
	for d := dir; d != e.ws && d != "/"; d = filepath.Dir(d) {
		e.chown(e.t, d)
	}
}

// hostSecretIn makes a world-readable file "secret" holding the attempt's
// secret in a fresh directory of the host's dir, named by $HOSTTMP.
func (e *llEnv) hostSecretIn(dir string) {
	d, err := os.MkdirTemp(dir, "sandtable-esc-")
	if err != nil {
		e.t.Fatal(err)
	}
	e.defer_(func() { os.RemoveAll(d) })
	os.Chmod(d, 0o755)
	e.secret = escToken(filepath.Base(dir))
	os.WriteFile(filepath.Join(d, "secret"), []byte(e.secret), 0o644)
	e.vars["HOSTTMP"] = d
}
