package sandbox

import (
	"slices"
	"testing"
)

// The decision matrix: what the macOS profile answers to the accesses the
// escape suite tries on Linux, judged by the evaluator of
// sbpl_eval_test.go. Each entry names the rule that decides it, and must
// flip when that rule is left out of the profile; an entry the table
// narrowed also flips back under the rule it replaced.

// matrixPlan is a macOS spawn with a hidden key in the workspace (one
// with an accented name), a hidden directory inside a read grant, one
// deep in the workspace, and missing ones there.
func matrixPlan(allMach, proxy bool) *plan {
	return newTestPlan(profileCase{
		name: "matrix", workspace: "/Users/u/ws", home: "/Users/u", ttys: []string{"/dev/ttys003"}, allMach: allMach, proxy: proxy,
		tmpdir: "/private/var/folders/xy/abc/T/sandtable-1",
		read:   []string{"/Users/u/.config"},
		hidden: map[string]pathKind{
			"/Users/u/.ssh":                kindDir,
			"/Users/u/.config/gh":          kindDir,
			"/Users/u/ws/.env":             kindFile,
			"/Users/u/ws/proj/a/key.pem":   kindFile,
			"/Users/u/ws/.netrc":           kindMissing,
			"/Users/u/ws/clé.pem":          kindFile,
			"/Users/u/ws/.git-credentials": kindMissing,
		},
	})
}

type matrixEntry struct {
	name  string
	q     sbplRequest
	allow bool
	rule  string // the rule whose form decides
	// old is the rule the table had in place of rule, under which the
	// answer was the other one (a narrowing's control); "" for none.
	old, oldForms string
	// cut is a rule also left out when rule is, where two rules deny the
	// same thing: the entry shows that rule decides without the other.
	cut     string
	allMach bool
	proxy   bool // network mode proxy, its listener on localhost:49152
}

var decisionMatrix = []matrixEntry{
	{name: "read a hidden key in the workspace", q: sbplRequest{op: "file-read-data", path: "/Users/u/ws/.env"}, rule: "hide-folded",
		cut: "hide-file"},
	{name: "read a file beside it", q: sbplRequest{op: "file-read-data", path: "/Users/u/ws/README"}, allow: true, rule: "read-allowlist"},
	{name: "create a missing hidden name in another case", q: sbplRequest{op: "file-write-create", path: "/Users/u/ws/.NETRC"}, rule: "hide-folded"},
	{name: "read a hidden key in its decomposed spelling", q: sbplRequest{op: "file-read-data", path: "/Users/u/ws/CLE\u0301.pem"}, rule: "hide-folded"},
	{name: "create a missing hidden name with a long s", q: sbplRequest{op: "file-write-create", path: "/Users/u/ws/.git-credential\u017f"}, rule: "hide-folded"},
	{name: "read a hidden key in another case", q: sbplRequest{op: "file-read-data", path: "/Users/u/ws/.ENV"}, rule: "hide-folded"},
	{name: "read a hidden directory in a read grant", q: sbplRequest{op: "file-read-data", path: "/Users/u/.config/gh/hosts.yml"}, rule: "hide-folded",
		cut: "hide-dir"},
	{name: "read it in another case", q: sbplRequest{op: "file-read-data", path: "/Users/u/.config/GH/hosts.yml"}, rule: "hide-folded"},
	{name: "write outside the workspace", q: sbplRequest{op: "file-write-data", path: "/Users/u/.bashrc"}, rule: "deny-default"},
	{name: "write in the workspace", q: sbplRequest{op: "file-write-data", path: "/Users/u/ws/out.txt"}, allow: true, rule: "write-allowlist"},
	{name: "plant a file in the host's /private/tmp", q: sbplRequest{op: "file-write-create", path: "/private/tmp/com.apple.x/run.sh"}, rule: "deny-default",
		old: "write-allowlist", oldForms: "(allow file-write* (subpath \"/Users/u/ws\") (subpath \"/private/tmp\") (subpath \"/private/var/folders\"))"},
	{name: "read another process's TMPDIR", q: sbplRequest{op: "file-read-data", path: "/private/var/folders/xy/abc/T/other/x"}, rule: "deny-default",
		old: "read-allowlist", oldForms: "(allow file-read* (subpath \"/Users/u/ws\") (subpath \"/private/tmp\") (subpath \"/private/var/folders\"))"},
	{name: "write its own temporary directory", q: sbplRequest{op: "file-write-create", path: "/private/var/folders/xy/abc/T/sandtable-1/x"}, allow: true, rule: "private-tmpdir"},
	{name: "rename a hidden path's parent", q: sbplRequest{op: "file-write-unlink", path: "/Users/u/ws/proj/a"}, rule: "hide-rename-guard"},
	{name: "rename its grandparent", q: sbplRequest{op: "file-write-unlink", path: "/Users/u/ws/proj"}, rule: "hide-rename-guard"},
	{name: "connect to the Docker socket", q: sbplRequest{op: "network-outbound", remoteUnix: "/private/var/run/docker.sock"}, rule: "deny-default",
		old: "network-outbound-ip", oldForms: "(allow network*)"},
	{name: "connect to a socket under a hidden path", q: sbplRequest{op: "network-outbound", remoteUnix: "/Users/u/.ssh/agent.sock"}, rule: "hide-socket",
		cut: "deny-default"},
	{name: "connect to ssh-agent's socket", q: sbplRequest{op: "network-outbound", remoteUnix: "/private/tmp/com.apple.launchd.x/Listeners"}, rule: "deny-default",
		old: "network-outbound-ip", oldForms: "(allow network*)"},
	{name: "resolve a name through mDNSResponder", q: sbplRequest{op: "network-outbound", remoteUnix: "/private/var/run/mDNSResponder"}, allow: true, rule: "dns-socket"},
	{name: "connect out over IP", q: sbplRequest{op: "network-outbound", remoteIP: "203.0.113.7:443"}, allow: true, rule: "network-outbound-ip"},
	{name: "listen on every interface", q: sbplRequest{op: "network-bind", localIP: "0.0.0.0:8080"}, rule: "deny-default",
		old: "network-outbound-ip", oldForms: "(allow network*)"},
	{name: "listen on localhost", q: sbplRequest{op: "network-bind", localIP: "127.0.0.1:8080"}, allow: true, rule: "network-localhost"},
	{name: "look up the pasteboard", q: sbplRequest{op: "mach-lookup", name: "com.apple.pasteboard.1"}, rule: "deny-default",
		old: "mach-libinfo", oldForms: "(allow mach*)"},
	{name: "look up the pasteboard, opted in", q: sbplRequest{op: "mach-lookup", name: "com.apple.pasteboard.1"}, allow: true, rule: "mach", allMach: true},
	{name: "look up opendirectoryd", q: sbplRequest{op: "mach-lookup", name: "com.apple.system.opendirectoryd.libinfo"}, allow: true, rule: "mach-libinfo"},
	{name: "take an outside task port", q: sbplRequest{op: "mach-priv-task-port", target: "other"}, rule: "deny-default",
		old: "mach-libinfo", oldForms: "(allow mach*)"},
	{name: "read kern.procargs2", q: sbplRequest{op: "sysctl-read", sysctl: "kern.procargs2"}, rule: "deny-default",
		old: "sysctl-read", oldForms: "(allow sysctl-read)"},
	{name: "read hw.ncpu", q: sbplRequest{op: "sysctl-read", sysctl: "hw.ncpu"}, allow: true, rule: "sysctl-read"},
	{name: "read another terminal", q: sbplRequest{op: "file-read-data", path: "/dev/ttys001"}, rule: "deny-default",
		old: "dev-read", oldForms: "(allow file-read* (subpath \"/dev\"))"},
	{name: "write to its own terminal", q: sbplRequest{op: "file-write-data", path: "/dev/ttys003"}, allow: true, rule: "own-terminal"},
	{name: "signal a process outside the sandbox", q: sbplRequest{op: "signal", target: "other"}, rule: "deny-default"},
	{name: "signal its own child", q: sbplRequest{op: "signal", target: "same-sandbox"}, allow: true, rule: "process-same-sandbox"},
	{name: "open POSIX shared memory", q: sbplRequest{op: "ipc-posix-shm"}, rule: "deny-default",
		old: "ipc-posix-sem", oldForms: "(allow ipc-posix-shm)\n(allow ipc-posix-sem)"},
	{name: "use a POSIX semaphore", q: sbplRequest{op: "ipc-posix-sem"}, allow: true, rule: "ipc-posix-sem"},
	{name: "create a routing socket", q: sbplRequest{op: "system-socket", domain: "AF_ROUTE", protocol: "0"}, rule: "deny-default",
		old: "system-socket", oldForms: "(allow system-socket)"},
	{name: "create a kernel event socket", q: sbplRequest{op: "system-socket", domain: "AF_SYSTEM", protocol: "1"}, rule: "deny-default",
		old: "system-socket", oldForms: "(allow system-socket)"},
	{name: "create a kernel control socket", q: sbplRequest{op: "system-socket", domain: "AF_SYSTEM", protocol: "2"}, allow: true, rule: "system-socket"},
	{name: "create a unix socket", q: sbplRequest{op: "system-socket", domain: "AF_UNIX", protocol: "0"}, allow: true, rule: "system-socket"},
	{name: "read another app's preferences", q: sbplRequest{op: "user-preference-read", pref: "com.apple.Safari"}, rule: "deny-default",
		old: "user-preference-read", oldForms: "(allow user-preference-read)"},
	{name: "read the global preferences", q: sbplRequest{op: "user-preference-read", pref: "kCFPreferencesAnyApplication"}, allow: true, rule: "user-preference-read"},
	{name: "read CFNetwork's preferences", q: sbplRequest{op: "user-preference-read", pref: "com.apple.CFNetwork"}, allow: true, rule: "user-preference-network"},
	{name: "read nvm's global npmrc", q: sbplRequest{op: "file-read-data", path: "/Users/u/.nvm/versions/node/v20.11.1/etc/npmrc"}, rule: "deny-default",
		old: "home-toolchains", oldForms: "(allow file-read* (subpath \"/Users/u/.nvm\"))"},
	{name: "run node from nvm", q: sbplRequest{op: "file-read-data", path: "/Users/u/.nvm/versions/node/v20.11.1/bin/node"}, allow: true, rule: "home-nvm"},
	{name: "load npm from nvm", q: sbplRequest{op: "file-read-data", path: "/Users/u/.nvm/versions/node/v20.11.1/lib/node_modules/npm/index.js"}, allow: true, rule: "home-nvm"},
	{name: "stat an nvm version's directory", q: sbplRequest{op: "file-read-metadata", path: "/Users/u/.nvm/versions/node/v20.11.1"}, allow: true, rule: "home-nvm-metadata"},
	{name: "list nvm's versions", q: sbplRequest{op: "file-read-data", path: "/Users/u/.nvm/versions/node"}, rule: "deny-default",
		old: "home-toolchains", oldForms: "(allow file-read* (subpath \"/Users/u/.nvm\"))"},
	{name: "connect to the proxy (mode proxy)", q: sbplRequest{op: "network-outbound", remoteIP: "127.0.0.1:49152"}, allow: true, rule: "proxy-outbound", proxy: true},
	{name: "connect out directly (mode proxy)", q: sbplRequest{op: "network-outbound", remoteIP: "203.0.113.7:443"}, rule: "deny-default", proxy: true},
	{name: "connect to a host loopback service (mode proxy)", q: sbplRequest{op: "network-outbound", remoteIP: "127.0.0.1:5432"}, rule: "deny-default", proxy: true,
		old: "proxy-outbound", oldForms: "(allow network-outbound (remote ip \"localhost:*\"))"},
	// Another run's proxy listens on the host's loopback, open to a
	// command in mode host: proxy-auth-darwin's token is what stops it
	// there (TestProxyAuthAttack); a command in mode proxy reaches only
	// its own port.
	{name: "connect to another run's proxy (mode host)", q: sbplRequest{op: "network-outbound", remoteIP: "127.0.0.1:49153"}, allow: true, rule: "network-outbound-ip"},
	{name: "connect to another run's proxy (mode proxy)", q: sbplRequest{op: "network-outbound", remoteIP: "127.0.0.1:49153"}, rule: "deny-default", proxy: true},
	{name: "connect to the Docker socket (mode proxy)", q: sbplRequest{op: "network-outbound", remoteUnix: "/private/var/run/docker.sock"}, rule: "deny-default", proxy: true},
	{name: "ask mDNSResponder (mode proxy)", q: sbplRequest{op: "network-outbound", remoteUnix: "/private/var/run/mDNSResponder"}, rule: "deny-default", proxy: true},
	{name: "listen on localhost (mode proxy)", q: sbplRequest{op: "network-bind", localIP: "127.0.0.1:8080"}, rule: "deny-default", proxy: true},
	{name: "verify TLS through trustd (mode proxy)", q: sbplRequest{op: "mach-lookup", name: "com.apple.trustd.agent"}, allow: true, rule: "mach-trustd", proxy: true},
	{name: "stat the workspace's parent", q: sbplRequest{op: "file-read-metadata", path: "/Users/u"}, allow: true, rule: "ancestor-metadata"},
	{name: "list the workspace's parent", q: sbplRequest{op: "file-read-data", path: "/Users/u"}, rule: "deny-default"},
}

// without returns steps with rule's forms left out, or replaced by forms.
func without(steps []Step, rule, forms string) []Step {
	out := slices.DeleteFunc(slices.Clone(steps), func(s Step) bool { return s.Rule == rule })
	if forms == "" {
		return out
	}
	for i, s := range steps {
		if s.Rule == rule {
			return slices.Insert(out, min(i, len(out)), Step{Rule: rule + " (before)", Args: []string{forms}})
		}
	}
	return out
}

func answer(allow bool) string {
	if allow {
		return "allow"
	}
	return "deny"
}

// TestDecisionMatrix judges each entry with the profile as built, without
// the rule that decides it, and under the rule it replaced.
func TestDecisionMatrix(t *testing.T) {
	// Writing .git/hooks and the other protected paths is judged the same
	// way, on this plan, by TestProtectDecisions.
	for _, e := range decisionMatrix {
		steps := darwinSteps(matrixPlan(e.allMach, e.proxy))
		forms, err := readPolicy(steps)
		if err != nil {
			t.Fatal(err)
		}
		got, at := decide(forms, e.q)
		by := "no rule"
		if at >= 0 {
			by = forms[at].rule
		}
		if got != e.allow || by != e.rule {
			t.Errorf("%s (%s): %s by %s, want %s by %s", e.name, e.q, answer(got), by, answer(e.allow), e.rule)
			continue
		}
		cut, err := readPolicy(without(without(steps, e.cut, ""), e.rule, ""))
		if err != nil {
			t.Fatal(err)
		}
		bare, _ := decide(cut, e.q)
		if bare == e.allow {
			t.Errorf("%s (%s): %s without rule %s too; the entry proves nothing", e.name, e.q, answer(bare), e.rule)
		}
		line := answer(got) + " by " + e.rule + "; " + answer(bare) + " without it"
		if e.cut != "" {
			line += " and " + e.cut
		}
		if e.old != "" {
			before, err := readPolicy(without(steps, e.old, e.oldForms))
			if err != nil {
				t.Fatal(err)
			}
			if was, _ := decide(before, e.q); was == e.allow {
				t.Errorf("%s (%s): %s under the old %s as well", e.name, e.q, answer(was), e.oldForms)
			} else {
				line += "; " + answer(was) + " with " + e.oldForms + " as rule " + e.old
			}
		}
		t.Logf("%-46s %s", e.name+":", line)
	}
}
