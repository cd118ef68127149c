package gen

import (
	"strings"
	"testing"
	"testing/fstest"
)

// TestLints runs the lints against rule shapes the TestGenBad goldens do
// not spell out: the wildcard and device variants of a grant. Each table
// is the minimal fixture with one platform's rules replaced.
func TestLints(t *testing.T) {
	const (
		linuxHead  = "schema: 1\nplatform: linux\nprogram: bwrap\nrules:\n  - id: root-read-only\n    args: [--ro-bind, /, /]\n    why: r.\n"
		linuxTail  = "  - id: end-of-options\n    args: [--]\n    why: e.\n"
		darwinTail = "  - id: profile-arg\n    args: [-p, $profile]\n    why: p.\n" + linuxTail
		darwinHead = "schema: 1\nplatform: darwin\nprogram: /usr/bin/sandbox-exec\nrules:\n  - id: version\n    version: 1\n    why: v.\n  - id: deny-default\n    deny: [default]\n    why: d.\n"
		hideDeny   = "  - id: hide\n    for: hidden\n    deny: [file-read*, file-write*]\n    filters: [{subpath: $path}]\n    why: h.\n"
	)
	for _, tc := range []struct {
		name          string
		linux, darwin string // rules between the fixed first and last ones
		want          string // "" when the table is valid
	}{
		{name: "file* after a hidden deny", darwin: hideDeny + "  - id: a\n    allow: [file*]\n    filters: [{subpath: $workspace}]\n    why: a.\n",
			want: `rule "a": allow file* after the hidden-path deny "hide" would reopen it`},
		{name: "file-read-metadata after a hidden deny", darwin: hideDeny + "  - id: a\n    allow: [file-read-metadata]\n    filters: [{subpath: /}]\n    why: a.\n",
			want: `rule "a": allow file-read-metadata after the hidden-path deny`},
		{name: "allow before the hidden deny", darwin: "  - id: a\n    allow: [file*]\n    filters: [{subpath: $workspace}]\n    why: a.\n" + hideDeny},
		{name: "process allow after a hidden deny", darwin: hideDeny + "  - id: a\n    allow: [process*]\n    why: a.\n"},
		{name: "file-write-data unreviewed", darwin: "  - id: w\n    allow: [file-write-data]\n    filters: [{subpath: /Users}]\n    why: w.\n",
			want: `rule "w": write grant outside the workspace and temp dirs (/Users) needs reviewed`},
		{name: "file* unreviewed", darwin: "  - id: w\n    allow: [file*]\n    filters: [{subpath: $workspace}, {literal: /etc/hosts}]\n    why: w.\n",
			want: `rule "w": write grant outside the workspace and temp dirs (/etc/hosts) needs reviewed`},
		{name: "dev-bind unreviewed", linux: "  - id: d\n    args: [--dev-bind, /dev, /dev]\n    why: d.\n",
			want: `rule "d": write grant outside the workspace and temp dirs (/dev) needs reviewed`},
		{name: "dev-bind-try unreviewed", linux: "  - id: d\n    args: [--dev-bind-try, /dev, /dev]\n    why: d.\n",
			want: `rule "d": write grant outside the workspace and temp dirs (/dev) needs reviewed`},
		{name: "bind-try of a caller path unreviewed", linux: "  - id: d\n    for: write\n    args: [--bind-try, $path, $path]\n    why: d.\n",
			want: `rule "d": write grant outside the workspace and temp dirs ($path) needs reviewed`},
		{name: "dev-bind reviewed", linux: "  - id: d\n    args: [--dev-bind, /dev/kvm, /dev/kvm]\n    reviewed: KVM for emulators.\n    why: d.\n"},
		{name: "unfiltered write allow unreviewed", darwin: "  - id: w\n    allow: [file-write*]\n    why: w.\n",
			want: `rule "w": write grant outside the workspace and temp dirs (every path: no filters) needs reviewed`},
		{name: "bind-fd unreviewed", linux: "  - id: d\n    args: [--bind-fd, \"5\", /srv]\n    why: d.\n",
			want: `rule "d": write grant outside the workspace and temp dirs (5) needs reviewed`},
		{name: "unclean destination", linux: "  - id: d\n    args: [--tmpfs, /../x]\n    why: d.\n",
			want: `rule "d": args: --tmpfs destination "/../x": not clean (want "/x")`},
		{name: "mount after the mounts group", linux: "  - id: ws\n    group: mounts\n    args: [--bind, $workspace, $workspace]\n    why: w.\n" +
			"  - id: hide-dir\n    for: hidden\n    when: is-dir\n    group: mounts\n    args: [--tmpfs, $path]\n    why: h.\n" +
			"  - id: home\n    args: [--ro-bind, /home, /home]\n    why: h.\n",
			want: `rule "home": args: --ro-bind after the mounts group would cover the hidden paths under its destination`},
		{name: "host tmp bind unreviewed", linux: "  - id: d\n    args: [--bind, /tmp, /tmp]\n    why: d.\n",
			want: `rule "d": write grant outside the workspace and temp dirs (/tmp) needs reviewed`},
		{name: "macOS temp dir bound on linux", linux: "  - id: d\n    args: [--bind, /private/tmp, /private/tmp]\n    why: d.\n",
			want: `rule "d": write grant outside the workspace and temp dirs (/private/tmp) needs reviewed`},
		{name: "darwin: no end of options", darwin: "  - id: p\n    args: [-p, $profile]\n    why: p.\n  - id: x\n    allow: [process-fork]\n    why: x.\n  - id: e\n    args: [--, -p, $profile]\n    why: e.\n",
			want: `darwin: the profile is passed 3 times`},
		{name: "darwin: -p with a constant", darwin: "  - id: p2\n    args: [-p, \"(version 1)(allow default)\"]\n    why: p.\n",
			want: `rule "p2": args: -p takes the generated profile (want -p $profile, got "(version 1)(allow default)")`},
		{name: "darwin: unknown option", darwin: "  - id: f\n    args: [-f, /tmp/x.sb]\n    why: f.\n",
			want: `rule "f": args: "-f" is not a sandbox-exec option the table knows (want -p $profile or --)`},
		{name: "darwin: -- early", darwin: "  - id: e0\n    args: [--]\n    why: e.\n",
			want: `rule "e0": args: -- before the last args rule would end sandbox-exec's options early`},
		{name: "darwin: args with a filter", darwin: "  - id: af\n    args: [--]\n    filters: [{subpath: /usr}]\n    why: e.\n",
			want: `rule "af": args: a sandbox-exec option takes no version, allow, deny, filters, for or when`},
		{name: "workspace bind", linux: "  - id: d\n    group: mounts\n    args: [--bind, $workspace, $workspace]\n    why: d.\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fsys := fstest.MapFS{}
			for p, f := range dirFS(t, fixtures+"/TestGen/minimal") {
				fsys[p] = f
			}
			if tc.linux != "" {
				fsys["linux.yaml"] = &fstest.MapFile{Data: []byte(linuxHead + tc.linux + linuxTail)}
			}
			if tc.darwin != "" {
				fsys["darwin.yaml"] = &fstest.MapFile{Data: []byte(darwinHead + tc.darwin + darwinTail)}
			}
			_, err := GenerateFS(fsys, "rules")
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("valid table rejected:\n%v", err)
			case tc.want != "" && err == nil:
				t.Errorf("accepted; want an error containing %q", tc.want)
			case tc.want != "" && !strings.Contains(err.Error(), tc.want):
				t.Errorf("error:\n%v\nwant it to contain %q", err, tc.want)
			}
		})
	}
}
