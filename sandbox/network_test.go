package sandbox

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"strings"
	"testing"
)

func TestNetworkMode(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want NetworkMode
		bad  bool
	}{
		{Config{}, DefaultNetworkMode(runtime.GOOS), false},
		{Config{Network: Network{Mode: NetworkOff}}, NetworkOff, false},
		{Config{Network: Network{Mode: NetworkHost}}, NetworkHost, false},
		{Config{NoNetwork: true}, NetworkOff, false},
		{Config{NoNetwork: true, Network: Network{Mode: NetworkOff}}, NetworkOff, false},
		{Config{NoNetwork: true, Network: Network{Mode: NetworkHost}}, 0, true},
		{Config{Network: Network{Mode: NetworkMode(200)}}, 0, true},
	} {
		got, err := networkMode(c.cfg)
		if c.bad {
			if !errors.Is(err, ErrBadPolicy) {
				t.Errorf("%+v: %v, want an error wrapping ErrBadPolicy", c.cfg, err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%+v: %v, %v; want %v", c.cfg, got, err, c.want)
		}
	}
	// The table's network-default rows.
	if DefaultNetworkMode("linux") != NetworkProxy || DefaultNetworkMode("darwin") != NetworkHost {
		t.Errorf("defaults: linux %v, darwin %v; want proxy and host", DefaultNetworkMode("linux"), DefaultNetworkMode("darwin"))
	}
	for _, s := range []string{"off", "OFF", "host"} {
		if _, err := ParseNetworkMode(s); err != nil {
			t.Errorf("ParseNetworkMode(%q): %v", s, err)
		}
	}
	for _, s := range []string{"", "default", "on", "none"} {
		if _, err := ParseNetworkMode(s); !errors.Is(err, ErrBadPolicy) {
			t.Errorf("ParseNetworkMode(%q): %v, want ErrBadPolicy", s, err)
		}
	}
}

// TestNetworkModeRows checks each mode's argv against its rows: off has no
// --share-net, host has it, and the deprecated NoNetwork is exactly off.
func TestNetworkModeRows(t *testing.T) {
	ws := t.TempDir()
	// The host's sockets as of now for every argv compared: one another
	// test opens or closes meanwhile would change one argv and not another.
	own, now := listHostSockets, listHostSockets()
	listHostSockets = func() []string { return now }
	defer func() { listHostSockets = own }()
	argv := func(cfg Config) []string {
		t.Helper()
		cfg.Workspace = ws
		steps, err := Explain("linux", cfg)
		if err != nil {
			t.Fatal(err)
		}
		var a []string
		for _, s := range steps {
			a = append(a, s.Args...)
		}
		return a
	}
	off := argv(Config{Network: Network{Mode: NetworkOff}})
	host := argv(Config{Network: Network{Mode: NetworkHost}})
	if slices.Contains(off, "--share-net") || !slices.Contains(host, "--share-net") {
		t.Errorf("off %q\nhost %q\nwant --share-net in host only", off, host)
	}
	if alias := argv(Config{NoNetwork: true}); !slices.Equal(alias, off) {
		t.Errorf("NoNetwork %q, want NetworkOff's %q", alias, off)
	}
	proxy := argv(Config{Network: Network{Mode: NetworkProxy}})
	if def := argv(Config{}); !slices.Equal(def, proxy) {
		t.Errorf("default %q, want NetworkProxy's %q", def, proxy)
	}
	darwin := func(cfg Config) string {
		t.Helper()
		cfg.Workspace = ws
		w, err := PrefixFor("darwin", cfg)
		if err != nil {
			t.Fatal(err)
		}
		return w.Profile
	}
	if def, host := darwin(Config{}), darwin(Config{Network: Network{Mode: NetworkHost}}); def != host {
		t.Errorf("darwin's default profile differs from NetworkHost's")
	}
	if _, err := Explain("linux", Config{Workspace: ws, NoNetwork: true, Network: Network{Mode: NetworkHost}}); !errors.Is(err, ErrBadPolicy) {
		t.Errorf("NoNetwork with NetworkHost: %v, want ErrBadPolicy", err)
	}
}

// TestNetworkProxyWrappers: Prefix and Command carry mode proxy in the
// wrap helper's argv on Linux (TestNetworkProxyCommand runs it); macOS
// renders it.
func TestNetworkProxyWrappers(t *testing.T) {
	ws := t.TempDir()
	cfg := Config{Workspace: ws, Network: Network{Mode: NetworkProxy, Allow: []string{"example.org:443"}}, Policy: Required}
	if runtime.GOOS == "linux" {
		c, err := Command(context.Background(), cfg, "true")
		if err != nil {
			t.Fatal(err)
		}
		i := slices.Index(c.Args, "--")
		if c.Path != wrapHelperExe || len(c.Args) < 5 || c.Args[1] != wrapHelperArg || c.Args[2] != "allow=example.org:443" || i < 3 ||
			slices.ContainsFunc(c.Args[3:i], func(a string) bool {
				return !strings.HasPrefix(a, wrapHelperProtect) && !strings.HasPrefix(a, wrapHelperJournal)
			}) {
			t.Errorf("Command's argv %q, want the wrap helper's", c.Args)
		}
		w, err := Prefix(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if w.Program != wrapHelperExe || w.Args[0] != wrapHelperArg || w.Args[len(w.Args)-1] != "--" {
			t.Errorf("Prefix: %s %q, want the wrap helper's argv ending in --", w.Program, w.Args)
		}
	}
	// macOS renders mode proxy (its proxy is served by NewCmd only, and
	// Command and Prefix refuse it there: TestMacProxyRefused).
	if w, err := PrefixFor("darwin", cfg); err != nil || !strings.Contains(w.Profile, `(remote ip "localhost:3128")`) {
		t.Errorf("PrefixFor darwin: %v, want the profile of mode proxy", err)
	}
	steps, err := Explain("linux", cfg)
	if err != nil {
		t.Fatal(err)
	}
	var args []string
	for _, s := range steps {
		args = append(args, s.Args...)
	}
	joined := strings.Join(args, " ")
	for _, want := range []string{"--share-net", "--setenv HTTPS_PROXY http://127.0.0.1:3128", "--setenv ALL_PROXY socks5h://127.0.0.1:1080"} {
		if !strings.Contains(joined, want) {
			t.Errorf("proxy argv lacks %q: %s", want, joined)
		}
	}
}

func TestNetworkHostAbstractNeedsHost(t *testing.T) {
	for _, m := range []NetworkMode{NetworkOff, NetworkProxy} {
		if err := (Network{Mode: m, HostAbstract: true}).Check(); !errors.Is(err, ErrBadPolicy) {
			t.Errorf("HostAbstract in mode %v: %v, want ErrBadPolicy", m, err)
		}
	}
	err := (Network{HostAbstract: true}).Check()
	if host := DefaultNetworkMode(runtime.GOOS) == NetworkHost; host != (err == nil) {
		t.Errorf("HostAbstract in the default mode (%v): %v", DefaultNetworkMode(runtime.GOOS), err)
	}
}
