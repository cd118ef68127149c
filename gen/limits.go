package gen

import (
	"fmt"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// LimitEntry is one row of the linux table's limits section: the default
// bound of one resource a run may use, and what happens where the machine
// cannot enforce it.
type LimitEntry struct {
	Pos   Pos
	ID    string
	Limit string // a word of limitKinds
	// Default is the value as written; Value is it in the limit's unit
	// (bytes, processes, seconds), 0 for none.
	Default string
	Value   uint64
	// RAMShare is N when the default is at most 1/N of the machine's
	// memory, 0 otherwise.
	RAMShare uint64
	// Unenforceable says what a run does where the machine cannot enforce
	// the default: "run" (unbounded, and said so) or "refuse". Only for
	// limits applied at run time; an explicit Config value always refuses.
	Unenforceable string
	Why           string
	Landlock      *BackendCol
}

// What is the entry's default as a reviewer reads it.
func (e LimitEntry) What() string {
	s := e.Limit + " " + e.Default
	if e.RAMShare > 0 {
		s += ", at most 1/" + strconv.FormatUint(e.RAMShare, 10) + " of RAM"
	}
	if e.Unenforceable != "" {
		s += "; where it cannot be enforced: " + e.Unenforceable
	}
	return s
}

// limitKind is one limit the sandbox knows how to apply.
type limitKind struct {
	unit string // bytes, processes or seconds
	// variable is the bwrap operand the limit fills, "" for limits
	// applied at run time (rlimits, cgroups), which can be unenforceable.
	variable string
	goName   string // the index constant in package sandbox
	// proxy is a limit network mode proxy's server counts itself, in the
	// caller's process: always enforced, in every spawn that has a proxy.
	proxy bool
}

// limitOrder is the limits vocabulary in the order of package sandbox's
// index constants.
var limitOrder = []string{"tmp-size", "shm-size", "processes", "memory", "cpu-time", "proxy-connections"}

var limitKinds = map[string]limitKind{
	"tmp-size":          {unit: "bytes", variable: varTmpSize, goName: "limitTmpSize"},
	"shm-size":          {unit: "bytes", variable: varShmSize, goName: "limitShmSize"},
	"processes":         {unit: "processes", goName: "limitProcesses"},
	"memory":            {unit: "bytes", goName: "limitMemory"},
	"cpu-time":          {unit: "seconds", goName: "limitCPUTime"},
	"proxy-connections": {unit: "connections", goName: "limitProxyConnections", proxy: true},
}

// The size variables: a --size operand filled from a limit.
const (
	varTmpSize = "$tmpsize"
	varShmSize = "$shmsize"
)

// sizeVars maps each size variable to the limit that fills it.
var sizeVars = map[string]string{varTmpSize: "tmp-size", varShmSize: "shm-size"}

// parseLimit reads a default in unit: "none", a decimal number, for bytes
// with a KiB, MiB or GiB suffix, for seconds with an s suffix.
func parseLimit(unit, s string) (uint64, error) {
	if s == "none" {
		return 0, nil
	}
	mult := uint64(1)
	switch unit {
	case "bytes":
		for i, suf := range []string{"KiB", "MiB", "GiB"} {
			if t, ok := strings.CutSuffix(s, suf); ok {
				s, mult = t, 1<<(10*(i+1))
				break
			}
		}
	case "seconds":
		t, ok := strings.CutSuffix(s, "s")
		if !ok {
			return 0, fmt.Errorf("no unit")
		}
		s = t
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil || n == 0 || s[0] == '0' || n > (1<<62)/mult {
		return 0, fmt.Errorf("not a positive number")
	}
	return n * mult, nil
}

// limitWant says what a default looks like, by unit.
var limitWant = map[string]string{
	"bytes":       "none, or a positive number of bytes with an optional KiB, MiB or GiB suffix",
	"processes":   "none, or a positive number of processes",
	"seconds":     "none, or a positive number of seconds followed by s",
	"connections": "none, or a positive number of connections",
}

// limits reads the linux table's limits section: {id, limit, default,
// ram-share, unenforceable, why} rows.
func (l *loader) limits(n *yaml.Node) []LimitEntry {
	if !l.kind(n, yaml.SequenceNode, "", "limits") {
		return nil
	}
	var out []LimitEntry
	for _, e := range n.Content {
		if !l.kind(e, yaml.MappingNode, "", "limits entry") {
			continue
		}
		en := LimitEntry{Pos: l.pos(e)}
		if v := lookup(e, "id"); v != nil {
			en.ID, _ = l.str(v, "", "limits: id")
		}
		share := ""
		l.keys(e, en.ID, []string{"id", "limit", "default", "ram-share", "unenforceable", "why", "landlock"}, func(key string, k, v *yaml.Node) {
			switch key {
			case "landlock":
				en.Landlock = l.backendCol(v, en.ID)
			case "limit":
				en.Limit, _ = l.str(v, en.ID, "limit")
			case "default":
				en.Default, _ = l.str(v, en.ID, "default")
			case "ram-share":
				share, _ = l.str(v, en.ID, "ram-share")
				if d, ok := strings.CutPrefix(share, "1/"); ok {
					if n, err := strconv.ParseUint(d, 10, 8); err == nil && n >= 2 && d[0] != '0' {
						en.RAMShare = n
						return
					}
				}
				l.at(l.pos(v), en.ID, "ram-share: cannot read %q (want 1/N, N from 2 to 255)", share)
			case "unenforceable":
				en.Unenforceable, _ = l.str(v, en.ID, "unenforceable")
			case "why":
				en.Why, _ = l.str(v, en.ID, "why")
			}
		})
		for _, key := range []string{"id", "limit", "default", "why"} {
			if lookup(e, key) == nil {
				l.at(en.Pos, en.ID, "limits: missing key %s (want %s)", key, limitKeyWant[key])
			}
		}
		out = append(out, en)
	}
	return out
}

var limitKeyWant = map[string]string{
	"id":      "a unique kebab-case id",
	"limit":   "one of " + strings.Join(limitOrder, ", "),
	"default": "the default bound, or none",
	"why":     "the reason a reviewer reads",
}

// parseEntry fills Value from Default once the limit is known; a problem
// is reported by checkLimits.
func (e *LimitEntry) parse() error {
	k, ok := limitKinds[e.Limit]
	if !ok {
		return nil
	}
	v, err := parseLimit(k.unit, e.Default)
	e.Value = v
	return err
}

// varBlockFD is the pipe bwrap waits on before it runs the command (bwrap
// --block-fd): the window in which the caller applies the run-time limits.
const varBlockFD = "$blockfd"
