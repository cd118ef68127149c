package gen

import (
	"fmt"
	"slices"
	"strings"
)

// checkStdio checks the stdio section against its vocabularies and makes
// it total: every kind of descriptor on every stream is decided by exactly
// one row, so no descriptor reaches the command by a default nobody wrote.
// A kind that passes as it is, other than a terminal or /dev/null, needs
// `reviewed`: the command can reopen it with every mode its file allows.
func checkStdio(c *errs, cm *Common, ids map[string]Pos, local map[string]Pos) {
	by := map[[2]string]StdioEntry{}
	for _, e := range cm.Stdio {
		checkID(c, e.Pos, e.ID, local, ids)
		checkWhy(c, e.Pos, e.ID, e.Why)
		if e.Kind != "" && !slices.Contains(stdioKinds, e.Kind) {
			c.at(e.Pos, e.ID, "stdio: unknown kind %q (want one of %s)", e.Kind, words(stdioKinds))
		}
		if e.Pass != "" && !slices.Contains(stdioPasses, e.Pass) {
			c.at(e.Pos, e.ID, "stdio: unknown pass %q (want one of %s)", e.Pass, words(stdioPasses))
		}
		if e.Pass == "as-is" && e.Kind != "" && !slices.Contains(stdioSafeKinds, e.Kind) && strings.TrimSpace(e.Reviewed) == "" {
			c.at(e.Pos, e.ID, "stdio: a %s passed as it is can be reopened with every mode it allows (want reviewed: the reason, or pass: copy)", e.Kind)
		}
		if e.Reviewed != "" && (e.Pass != "as-is" || slices.Contains(stdioSafeKinds, e.Kind)) {
			c.at(e.Pos, e.ID, "stdio: reviewed on a row that passes nothing reopenable (want it only with pass: as-is for a kind other than %s)", words(stdioSafeKinds))
		}
		if len(e.Streams) == 0 && e.Kind != "" {
			c.at(e.Pos, e.ID, "stdio: no streams (want a list of %s)", words(stdioStreams))
		}
		for _, s := range e.Streams {
			if !slices.Contains(stdioStreams, s) {
				c.at(e.Pos, e.ID, "stdio: unknown stream %q (want one of %s)", s, words(stdioStreams))
				continue
			}
			key := [2]string{s, e.Kind}
			if first, ok := by[key]; ok {
				c.at(e.Pos, e.ID, "stdio: %s on %s is already decided by %q (want one row for each kind and stream)", e.Kind, s, first.ID)
				continue
			}
			by[key] = e
		}
	}
	if len(cm.Stdio) == 0 {
		return // no section: every stream gets nothing (see emitStdio)
	}
	var missing []string
	for _, k := range stdioKinds {
		for _, s := range stdioStreams {
			if _, ok := by[[2]string{s, k}]; !ok {
				missing = append(missing, fmt.Sprintf("%s on %s", k, s))
			}
		}
	}
	if len(missing) > 0 {
		last := cm.Stdio[len(cm.Stdio)-1]
		c.at(last.Pos, "", "stdio: no row decides %s (want every kind on every stream: %s; %s)", strings.Join(missing, ", "), words(stdioKinds), words(stdioStreams))
	}
}
