package gen

import (
	"maps"
	"slices"
	"strconv"
)

// checkLimits checks the limits section against the limits the generator
// knows, and the size variables the rules use against the section.
func checkLimits(c *errs, p *Platform, local, global map[string]Pos) {
	seen := map[string]string{}
	for i := range p.Limits {
		e := &p.Limits[i]
		checkID(c, e.Pos, e.ID, local, global)
		k, ok := limitKinds[e.Limit]
		if !ok {
			if e.Limit != "" {
				c.at(e.Pos, e.ID, "limits: unknown limit %q (want one of %s)", e.Limit, words(limitOrder))
			}
			continue
		}
		if first, dup := seen[e.Limit]; dup {
			c.at(e.Pos, e.ID, "limits: %s already has its default in %q (want one row per limit)", e.Limit, first)
			continue
		}
		seen[e.Limit] = e.ID
		if err := e.parse(); err != nil {
			c.at(e.Pos, e.ID, "limits: %s default %q: %v (want %s)", e.Limit, e.Default, err, limitWant[k.unit])
			continue
		}
		if e.RAMShare > 0 && k.unit != "bytes" {
			c.at(e.Pos, e.ID, "limits: ram-share bounds a size, and %s counts %s (want no ram-share)", e.Limit, k.unit)
		}
		if e.RAMShare > 0 && e.Value == 0 {
			c.at(e.Pos, e.ID, "limits: ram-share of no default bounds nothing (want a default, or no ram-share)")
		}
		switch {
		case k.variable != "":
			if e.Value == 0 {
				c.at(e.Pos, e.ID, "limits: %s fills %s, and a tmpfs without a size is half of RAM (want a size)", e.Limit, k.variable)
			}
			if e.Unenforceable != "" {
				c.at(e.Pos, e.ID, "limits: %s is in bwrap's argv and always enforced (want no unenforceable)", e.Limit)
			}
		case k.proxy:
			if e.Unenforceable != "" {
				c.at(e.Pos, e.ID, "limits: %s is counted by the proxy itself and always enforced (want no unenforceable)", e.Limit)
			}
		case e.Value == 0 && e.Unenforceable != "":
			c.at(e.Pos, e.ID, "limits: a default of none has nothing to enforce (want no unenforceable)")
		case e.Value != 0 && e.Unenforceable != "run" && e.Unenforceable != "refuse":
			c.at(e.Pos, e.ID, "limits: unenforceable: got %q; %s is applied at run time, where a machine may not allow it (want run or refuse)", e.Unenforceable, e.Limit)
		}
	}
	for _, r := range p.Rules {
		for _, a := range r.Args {
			if lim, ok := sizeVars[a]; ok && seen[lim] == "" {
				c.at(r.ArgsPos, r.ID, "%s is filled from the limits row for %s, and there is none (want a limits row with limit: %s)", a, lim, lim)
			}
		}
	}
}

// checkSize checks the --size at args[i]: bwrap takes it only right before
// --tmpfs, and its operand is a size variable or a positive number of
// bytes. A size variable anywhere else is a misplaced number.
func checkSize(c *errs, r *Rule, i int) {
	if !bwrapFlags[r.Args[i]].size {
		if i+1 < len(r.Args) {
			for _, op := range r.Args[i+1 : min(len(r.Args), i+1+bwrapFlags[r.Args[i]].operands)] {
				if _, ok := sizeVars[op]; ok {
					c.at(r.ArgsPos, r.ID, "args: %s is a size, and %s takes none (want it after --size)", op, r.Args[i])
				}
			}
		}
		return
	}
	if next := bwrapFlags[r.Args[i]].before; i+2 >= len(r.Args) || r.Args[i+2] != next {
		c.at(r.ArgsPos, r.ID, "args: --size sizes the next --tmpfs only (want --tmpfs right after its operand)")
	}
	if i+1 < len(r.Args) {
		op := r.Args[i+1]
		if _, ok := sizeVars[op]; ok {
			return
		}
		if n, err := strconv.ParseUint(op, 10, 64); err != nil || n == 0 || op[0] == '0' {
			c.at(r.ArgsPos, r.ID, "args: --size %q: not a positive number of bytes; bwrap refuses 0 (want a number or one of %s)", op, words(slices.Sorted(maps.Keys(sizeVars))))
		}
	}
}

// mountFlagAt skips the options that modify the next mount (--size,
// --perms) and returns the index of the mount flag itself.
func mountFlagAt(args []string) int {
	i := 0
	for i+1 < len(args) && bwrapFlags[args[i]].mount == mountModifier {
		i += 1 + bwrapFlags[args[i]].operands
	}
	return i
}

// remountBeforeGroup reports a --remount-ro of the iterated path placed
// before the mounts group ends: the mounts under it would then find it
// read-only and fail the spawn.
func checkRemountOrder(c *errs, p *Platform) {
	groupEnd := -1
	for i, r := range p.Rules {
		if r.Group != "" {
			groupEnd = i
		}
	}
	for i, r := range p.Rules {
		if r.Group == "" && i < groupEnd && slices.ContainsFunc(r.Args, isRemount) && (slices.Contains(r.Args, varPath) || slices.Contains(r.Args, varWorkspace)) {
			c.at(r.ArgsPos, r.ID, "args: --remount-ro of a mounts-group path before the group ends would stop the mounts beneath it (want it after the group)")
		}
	}
}

// isRemount reports whether a is a flag that changes an existing mount.
func isRemount(a string) bool { return bwrapFlags[a].mount == mountRemount }
