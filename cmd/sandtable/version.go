package main

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
)

var versionHelp = helpText{
	synopsis: "version",
	description: `Print the module version and the commit this binary was built from, as the
Go toolchain recorded them in its build info: "(devel)" for a build from a
checkout, then the commit, its time, and "modified" when the tree had
uncommitted changes.`,
	example: "  sandtable version",
}

// cmdVersion prints the module version and the commit this binary was
// built from, as the Go toolchain recorded them in its build info.
func cmdVersion(args []string) int {
	fs := newFlagSet("version")
	if code, done := parseFlags(fs, versionHelp, args); done {
		return code
	}
	if err := noArgs(fs); err != nil {
		return report("version", err)
	}
	info, _ := debug.ReadBuildInfo()
	writeVersion(os.Stdout, info)
	return 0
}

// writeVersion writes one line: the module version ("(devel)" for a build
// from a checkout), then the VCS revision, its time and "modified" when
// the build info has them.
func writeVersion(w io.Writer, info *debug.BuildInfo) {
	version := "unknown"
	var rev, at, modified string
	if info != nil {
		version = info.Main.Version
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.time":
				at = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					modified = " modified"
				}
			}
		}
	}
	fmt.Fprintf(w, "sandtable %s", version)
	if rev != "" {
		fmt.Fprintf(w, " commit %s", rev)
	}
	if at != "" {
		fmt.Fprintf(w, " (%s)", at)
	}
	fmt.Fprintf(w, "%s\n", modified)
}
