package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// interactiveShells are the shells run recognises as started for a person
// at a terminal (with -i, or with no arguments at all).
var interactiveShells = []string{"bash", "sh", "dash", "zsh", "ksh", "mksh", "fish", "tcsh", "csh"}

// shellNote is the line run prints before CMD when CMD is an interactive
// shell on a terminal without --interactive: on Linux the sandbox gives it
// a session of its own (rule new-session), without a controlling terminal,
// so the shell has no job control and no /dev/tty. "" otherwise.
func shellNote(goos, name string, args []string, interactive, stdinTerminal bool) string {
	if goos != "linux" || interactive || !stdinTerminal || !slices.Contains(interactiveShells, filepath.Base(name)) {
		return ""
	}
	asked := len(args) == 0
	for _, a := range args {
		if a == "-c" || a == "--command" || !strings.HasPrefix(a, "-") {
			return "" // a script or a command string
		}
		if a == "-i" || a == "--interactive" || !strings.HasPrefix(a, "--") && strings.ContainsRune(a[1:], 'i') {
			asked = true
		}
	}
	if !asked {
		return ""
	}
	return "sandtable: note: " + filepath.Base(name) + " runs in a session of its own without a controlling terminal (rule new-session): no job control (^Z, fg, bg) and no /dev/tty; run with --interactive for a shell at a terminal"
}

// stdinIsTerminal reports whether this process's stdin is a terminal.
func stdinIsTerminal() bool {
	fi, err := os.Stdin.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0 && isTerminal(int(os.Stdin.Fd()))
}
