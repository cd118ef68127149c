package gen

import (
	"bytes"
	"strings"
)

// docCaches renders the caches section of docs/POLICY.md.
func docCaches(b *bytes.Buffer, c *Common) {
	if len(c.Caches) == 0 {
		return
	}
	b.WriteString("\n### Tool caches\n\n")
	b.WriteString("Private to the sandbox, writable and kept across runs, one directory per\n")
	b.WriteString("row under sandtable's cache root (`$XDG_CACHE_HOME/sandtable/caches`, else\n")
	b.WriteString("`$home/.cache/sandtable/caches`), never the host's own cache: each is\n")
	b.WriteString("created 0700 and bound writable (rule `cache-bind`), and the variable is\n")
	b.WriteString("set in the child's environment. A cache of scope `workspace` is kept\n")
	b.WriteString("once per resolved workspace (`…/caches/ws-KEY/DIR`, KEY a hash of its\n")
	b.WriteString("path), so what one workspace's run leaves there no other workspace's run\n")
	b.WriteString("reads; one of scope `user` (`…/caches/user/DIR`) is shared by every run\n")
	b.WriteString("of the caller. `Config.NoCache` (`--no-cache`) turns them all off.\n\n")
	table(b, []string{"ID", "Directory", "Scope", "Variable set", "Tool's default", "Why"}, func(row func(...string)) {
		for _, e := range c.Caches {
			val := e.Env + "=" + strings.Replace(e.Value, varDir, "…/caches/"+e.Dir, 1)
			row(code(e.ID), code(e.Dir), e.Scope, code(val), code(e.Default), prose(e.Why))
		}
	})
}
