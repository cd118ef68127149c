package main

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"runtime"
	"strings"

	"github.com/sandtable/sandtable/sandbox"
)

// networkConfig is the network flags as a sandbox.Network: --network's
// mode, or --no-network's, or proxy for --allow-host and --allow-private
// alone. A combination that cannot run, or an entry that does not parse,
// is one error naming the flags as given.
func (f *sandboxFlags) networkConfig() (sandbox.Network, error) {
	var n sandbox.Network
	var err error
	modeFlag := "" // the flag that set the mode, as the user wrote it
	if f.network.set {
		if n.Mode, err = sandbox.ParseNetworkMode(f.network.v); err != nil {
			return n, fmt.Errorf("--network %q: want off, proxy or host", f.network.v)
		}
		modeFlag = "--network " + f.network.v
	}
	if f.noNetwork {
		if n.Mode != sandbox.NetworkDefault && n.Mode != sandbox.NetworkOff {
			return n, fmt.Errorf("--no-network contradicts %s (--no-network is --network off: give one of them)", modeFlag)
		}
		n.Mode, modeFlag = sandbox.NetworkOff, "--no-network"
	}
	lists := []struct {
		flag string
		in   pathList
		out  *[]string
	}{{"--allow-host", f.allowHost, &n.Allow}, {"--allow-private", f.allowPrivate, &n.Private}}
	for _, l := range lists {
		if len(l.in) == 0 {
			continue
		}
		if n.Mode == sandbox.NetworkDefault {
			n.Mode = sandbox.NetworkProxy
		}
		if n.Mode != sandbox.NetworkProxy {
			return n, fmt.Errorf("%s is for --network proxy, not %s (the proxy is what lets a listed destination through: drop one of them)", l.flag, modeFlag)
		}
		for _, e := range l.in {
			dest, err := destination(e)
			if err == nil {
				err = sandbox.Network{Mode: sandbox.NetworkProxy, Allow: []string{dest}}.Check()
				if l.out == &n.Private && err == nil {
					err = sandbox.Network{Mode: sandbox.NetworkProxy, Private: []string{dest}}.Check()
				}
			}
			if err != nil {
				return n, fmt.Errorf("%s %s: %s", l.flag, e, entryProblem(err))
			}
			*l.out = append(*l.out, dest)
		}
	}
	n.HostAbstract = f.hostAbstract
	if f.hostAbstract {
		mode := n.Mode
		if mode == sandbox.NetworkDefault {
			mode = sandbox.DefaultNetworkMode(runtime.GOOS)
			modeFlag = "the default mode here, " + mode.String()
		} else if modeFlag == "" {
			modeFlag = "the mode --allow-host and --allow-private ask for, proxy"
		}
		if mode != sandbox.NetworkHost {
			return n, fmt.Errorf("--host-abstract is for --network host, not %s (want --network host, or no --host-abstract)", modeFlag)
		}
	}
	// Anything left is the sandbox's to say.
	return n, n.Check()
}

// destination is an --allow-host or --allow-private entry as the proxy
// reads it: NAME[:PORT], *.NAME[:PORT] or IP[:PORT] as given, or a URL's
// host and port (what `npm config get registry` prints), its scheme's
// default port when it names none. A URL with more than a host and port
// is refused with the entry to write instead: the proxy allows hosts,
// not paths, and a password has no place on the command line.
func destination(e string) (string, error) {
	scheme, _, isURL := strings.Cut(e, "://")
	if !isURL {
		return e, nil
	}
	u, err := url.Parse(e)
	if err != nil || u.Host == "" || u.Opaque != "" {
		return "", errors.New("not a URL the proxy can read (want NAME[:PORT], *.NAME[:PORT] or IP[:PORT])")
	}
	port := u.Port()
	if port == "" {
		switch strings.ToLower(scheme) {
		case "http", "ws":
			port = "80"
		case "https", "wss":
			port = "443"
		default:
			return "", fmt.Errorf("a %s URL, whose port sandtable does not know (want %s)", scheme, net.JoinHostPort(u.Hostname(), "PORT"))
		}
	}
	want := net.JoinHostPort(u.Hostname(), port)
	switch {
	case u.User != nil:
		return "", fmt.Errorf("a URL with a user or password, which the proxy does not use (want %s)", want)
	case u.Path != "" && u.Path != "/" || u.RawQuery != "" || u.Fragment != "":
		return "", fmt.Errorf("the proxy allows a host and port, not a path: it lets all of %s through (want %s)", want, want)
	}
	return want, nil
}

// entryProblem is what the sandbox said of an entry, without its own name
// for the list (Network.Allow) and the entry, which the flag names.
func entryProblem(err error) string {
	msg := strings.TrimPrefix(err.Error(), "sandbox: ")
	for _, field := range []string{"Network.Allow: ", "Network.Private: "} {
		msg = strings.TrimPrefix(msg, field)
	}
	if q, rest, ok := strings.Cut(msg, ": "); ok && strings.HasPrefix(q, `"`) {
		msg = rest
	}
	return msg
}
