package gen

import (
	"bytes"
	"strconv"
)

// limitsDoc renders the limits section: each limit's default, how it is
// enforced, and what a run does where it cannot be.
func limitsDoc(b *bytes.Buffer, p *Platform) {
	if len(p.Limits) == 0 {
		return
	}
	b.WriteString("\n### Limits\n\n")
	b.WriteString("What one run may use, by default. `Config.Limits` (and `sandtable run`'s\n")
	b.WriteString("flags) changes each; a value the caller sets is enforced or the spawn is\n")
	b.WriteString("refused. The sizes are in bwrap's argv; the other limits are applied to\n")
	b.WriteString("the sandbox alone while bwrap holds the command (`--block-fd`), and only\n")
	b.WriteString("by `NewCmd` and `sandtable run`: `Command` returns a plain `exec.Cmd`.\n\n")
	table(b, []string{"ID", "Limit", "Default", "At most", "Where it cannot be enforced", "Why"}, func(row func(...string)) {
		for _, e := range p.Limits {
			most := ""
			if e.RAMShare > 0 {
				most = "1/" + strconv.FormatUint(e.RAMShare, 10) + " of RAM"
			}
			un := e.Unenforceable
			if k, ok := limitKinds[e.Limit]; ok && k.variable != "" {
				un = "always enforced: " + code(k.variable) + " in the argv"
			} else if ok && k.proxy {
				un = "always enforced: the proxy counts them, in `NewCmd` and `Command` alike"
			}
			row(code(e.ID), code(e.Limit), code(e.Default), most, un, prose(e.Why))
		}
	})
}
