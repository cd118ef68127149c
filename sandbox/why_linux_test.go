//go:build linux

package sandbox

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// whyProbe is a bash snippet that reports what the command finds at a
// path: whether it reads the host's marker there, and whether a write
// there lands on the host.
const whyProbe = `p=$1; m=$2
if [ -f "$p" ]; then c=$(cat "$p" 2>/dev/null); case "$c" in *"$m"*) echo READ-HOST;; *) echo READ-OTHER;; esac
elif [ -d "$p" ]; then if [ -e "$p/marker" ] && grep -q "$m" "$p/marker" 2>/dev/null; then echo READ-HOST; else echo READ-OTHER; fi
else echo READ-NONE; fi
t=$p; [ -d "$p" ] && t=$p/probe-written
if (echo "$m-written" >> "$t") 2>/dev/null || mkdir "$t" 2>/dev/null; then echo WRITE-OK; else echo WRITE-FAIL; fi`

// TestWhyMatchesSpawn: for a table of targets, what Why decides is what a
// real spawn of the same Config does: a hidden or redacted file does not
// give the command the host's secret, a read-only or protected path takes
// no write, a writable one takes it on the host, a private one takes it
// inside only; a stripped variable is not in the command's environment,
// a passed one is; a host the proxy refuses is refused to the command
// and one Network.Private lists is reached. Each decision is also
// checked the other way (a target of each kind whose answer differs), so
// a Why that said "writable" everywhere would fail.
func TestWhyMatchesSpawn(t *testing.T) {
	base, home, ws := fixture(t)
	clearDerivedEnv(t)
	const marker = "why-marker-7f3a"
	writeFile(t, mkdir(t, home, ".ssh"), "id_rsa", marker)
	writeFile(t, home, ".npmrc", "//registry.example/:_authToken="+marker+"\n")
	writeFile(t, mkdir(t, home, "data"), "marker", marker)
	writeFile(t, ws, "marker", marker)
	writeFile(t, mkdir(t, ws, ".git"), "config", "[core]\n\tbare = false\n"+"# "+marker+"\n")
	mkdir(t, ws, ".git", "hooks")
	grant := mkdir(t, base, "grant")
	writeFile(t, grant, "marker", marker)
	cfg := Config{Workspace: ws, Write: []string{grant}, Network: Network{Mode: NetworkOff}}
	// Another workspace's caches, beside this one's (hide-cache-root).
	cacheRoot, err := CacheRoot()
	if err != nil || cacheRoot == "" {
		t.Fatalf("CacheRoot: %q, %v", cacheRoot, err)
	}
	writeFile(t, mkdir(t, cacheRoot, "other-workspace"), "marker", marker)

	type want struct {
		decision string
		read     string // READ-HOST, READ-OTHER, READ-NONE
		write    bool   // a write lands on the host
		inside   bool   // a write succeeds inside the sandbox
	}
	cases := map[string]want{
		home + "/.ssh/id_rsa":          {"hidden", "READ-NONE", false, false},
		home + "/.ssh":                 {"hidden", "READ-OTHER", false, false},
		home + "/.npmrc":               {"redacted", "READ-OTHER", false, false},
		home + "/data":                 {"read-only", "READ-HOST", false, false},
		home + "/data/marker":          {"read-only", "READ-HOST", false, false},
		ws + "/.git/config":            {"protected", "READ-HOST", false, false},
		ws + "/.git/hooks":             {"protected", "READ-OTHER", false, false},
		ws + "/.vscode":                {"protected", "READ-OTHER", false, false},
		ws + "/marker":                 {"writable", "READ-HOST", true, true},
		ws:                             {"writable", "READ-HOST", true, true},
		grant:                          {"writable", "READ-HOST", true, true},
		"/tmp/why-" + marker:           {"private", "READ-NONE", false, true},
		cacheRoot + "/other-workspace": {"hidden", "READ-NONE", false, false},
		"/etc/passwd":                  {"read-only", "READ-OTHER", false, false},
	}
	for target, w := range cases {
		t.Run(strings.ReplaceAll(strings.TrimPrefix(target, base), "/", "_"), func(t *testing.T) {
			a, err := Why("linux", cfg, target)
			if err != nil {
				t.Fatalf("Why(%s): %v", target, err)
			}
			if a.Decision != w.decision || a.Rule.ID == "" || !strings.HasPrefix(a.Rule.Source, "rules/") {
				t.Errorf("Why(%s) = %s by %q (%s), want %s by a row", target, a.Decision, a.Rule.ID, a.Rule.Source, w.decision)
			}
			before, _ := os.ReadFile(target)
			cmd := newCmd(t, cfg, "bash", "-c", whyProbe, "probe", target, marker)
			got, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("spawn: %v: %s", err, got)
			}
			lines := strings.Fields(string(got))
			if len(lines) != 2 {
				t.Fatalf("probe said %q", got)
			}
			if lines[0] != w.read {
				t.Errorf("%s (%s): the command found %s, want %s", target, a.Decision, lines[0], w.read)
			}
			wroteInside := lines[1] == "WRITE-OK"
			after, _ := os.ReadFile(target)
			probe, _ := os.ReadFile(filepath.Join(target, "probe-written"))
			landed := strings.Contains(string(after), marker+"-written") && !strings.Contains(string(before), marker+"-written") || strings.Contains(string(probe), marker+"-written")
			if wroteInside != w.inside || landed != w.write {
				t.Errorf("%s (%s): a write inside succeeded %v, landed on the host %v; want %v, %v", target, a.Decision, wroteInside, landed, w.inside, w.write)
			}
			os.Remove(filepath.Join(target, "probe-written"))
		})
	}

	t.Run("env", func(t *testing.T) {
		t.Setenv("WHY_TEST_TOKEN", marker)
		t.Setenv("WHY_TEST_PLAIN", marker)
		for name, decision := range map[string]string{"WHY_TEST_TOKEN": "stripped", "WHY_TEST_PLAIN": "passed"} {
			a, err := Why("linux", cfg, name)
			if err != nil || a.Decision != decision {
				t.Errorf("Why(%s) = %+v, %v; want %s", name, a, err, decision)
			}
			out, err := newCmd(t, cfg, "sh", "-c", `printf '%s' "$`+name+`"`).CombinedOutput()
			if err != nil {
				t.Fatalf("spawn: %v: %s", err, out)
			}
			if got := string(out) == marker; got != (decision == "passed") {
				t.Errorf("%s (%s): the command sees it: %v", name, decision, got)
			}
		}
		k := cfg
		k.KeepEnv = []string{"WHY_TEST_TOKEN"}
		if a, _ := Why("linux", k, "WHY_TEST_TOKEN"); a.Decision != "passed" {
			t.Errorf("Why(WHY_TEST_TOKEN) with KeepEnv = %s, want passed", a.Decision)
		}
	})

	t.Run("socket", func(t *testing.T) {
		sock := filepath.Join(base, "why.sock")
		ln, err := net.Listen("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				c.Write([]byte(marker))
				c.Close()
			}
		}()
		connect := `import socket, sys
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(sys.argv[1]); print(s.recv(64).decode())
except OSError as e:
    print("refused", e)`
		for _, c := range []struct {
			grant    []string
			decision string
		}{{nil, "hidden"}, {[]string{sock}, "reachable"}} {
			sc := cfg
			sc.Sockets = c.grant
			a, err := Why("linux", sc, sock)
			if err != nil || a.Kind != "socket" || a.Decision != c.decision {
				t.Errorf("Why(%s) with Sockets %v = %+v, %v; want a socket, %s", sock, c.grant, a, err, c.decision)
			}
			out, _ := newCmd(t, sc, "python3", "-c", connect, sock).CombinedOutput()
			if got := strings.Contains(string(out), marker); got != (c.decision == "reachable") {
				t.Errorf("%s (%s): the command reached it: %v (%q)", sock, c.decision, got, out)
			}
		}
	})

	t.Run("host", func(t *testing.T) {
		if _, err := os.Stat("/usr/bin/curl"); err != nil {
			t.Skip("no /usr/bin/curl to reach the proxy with")
		}
		ln, err := net.Listen("tcp4", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, marker) })}
		go srv.Serve(ln)
		t.Cleanup(func() { srv.Close() })
		dest := ln.Addr().String()
		for _, c := range []struct {
			private  []string
			decision string
		}{{nil, "refused"}, {[]string{dest}, "reachable"}} {
			pc := cfg
			pc.Network = Network{Mode: NetworkProxy, Private: c.private}
			a, err := Why("linux", pc, "http://"+dest+"/")
			if err != nil || a.Decision != c.decision {
				t.Errorf("Why(http://%s/) with Private %v = %+v, %v; want %s", dest, c.private, a, err, c.decision)
			}
			// NO_PROXY keeps 127.0.0.1 direct (proxy-env): name the proxy.
			out, _ := newCmd(t, pc, "curl", "-sS", "--max-time", "10", "--noproxy", "", "-x", "http://127.0.0.1:3128", "http://"+dest+"/").CombinedOutput()
			if got := strings.Contains(string(out), marker); got != (c.decision == "reachable") {
				t.Errorf("%s (%s): the command reached it: %v (%q)", dest, c.decision, got, out)
			}
		}
	})
}
