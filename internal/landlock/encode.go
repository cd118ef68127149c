package landlock

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// encodeMagic begins an encoded ruleset; the version after it changes with
// the format.
const encodeMagic = "sandtable-landlock 1\n"

// Marshal encodes rs for the process that applies it (a helper re-executed
// across exec): a header line of numbers, then each rule as its access,
// kind and path, NUL-terminated, so that a path may hold any byte but NUL.
func (rs *Ruleset) Marshal() []byte {
	var b bytes.Buffer
	b.WriteString(encodeMagic)
	fmt.Fprintf(&b, "%d %x %x %x %s %s\n", rs.ABI, uint64(rs.HandledFS), uint64(rs.HandledNet), uint64(rs.Scoped), ports(rs.Connect), ports(rs.Bind))
	for _, r := range rs.Rules {
		kind := "f"
		if r.Dir {
			kind = "d"
		}
		if r.Must {
			kind += "!"
		}
		fmt.Fprintf(&b, "%x %s %s\x00", uint64(r.Access), kind, r.Path)
	}
	return b.Bytes()
}

// ports is a port list as "-" (none) or comma-separated numbers.
func ports(ps []uint16) string {
	if len(ps) == 0 {
		return "-"
	}
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = strconv.Itoa(int(p))
	}
	return strings.Join(s, ",")
}

func parsePorts(s string) ([]uint16, error) {
	if s == "-" {
		return nil, nil
	}
	var out []uint16
	for _, w := range strings.Split(s, ",") {
		n, err := strconv.ParseUint(w, 10, 16)
		if err != nil {
			return nil, err
		}
		out = append(out, uint16(n))
	}
	return out, nil
}

// Unmarshal decodes what Marshal encoded; anything else is an error.
func Unmarshal(data []byte) (*Ruleset, error) {
	rest, ok := bytes.CutPrefix(data, []byte(encodeMagic))
	if !ok {
		return nil, fmt.Errorf("landlock: decode: not an encoded ruleset")
	}
	head, body, ok := bytes.Cut(rest, []byte("\n"))
	if !ok {
		return nil, fmt.Errorf("landlock: decode: no header")
	}
	f := strings.Fields(string(head))
	if len(f) != 6 {
		return nil, fmt.Errorf("landlock: decode: header %q", head)
	}
	rs := &Ruleset{}
	var err error
	var n [3]uint64
	if rs.ABI, err = strconv.Atoi(f[0]); err != nil {
		return nil, fmt.Errorf("landlock: decode: abi: %w", err)
	}
	for i := range n {
		if n[i], err = strconv.ParseUint(f[1+i], 16, 64); err != nil {
			return nil, fmt.Errorf("landlock: decode: header: %w", err)
		}
	}
	rs.HandledFS, rs.HandledNet, rs.Scoped = AccessFS(n[0]), AccessNet(n[1]), Scope(n[2])
	if rs.Connect, err = parsePorts(f[4]); err != nil {
		return nil, fmt.Errorf("landlock: decode: connect: %w", err)
	}
	if rs.Bind, err = parsePorts(f[5]); err != nil {
		return nil, fmt.Errorf("landlock: decode: bind: %w", err)
	}
	for len(body) > 0 {
		rec, more, ok := bytes.Cut(body, []byte{0})
		if !ok {
			return nil, fmt.Errorf("landlock: decode: unterminated rule")
		}
		body = more
		parts := strings.SplitN(string(rec), " ", 3)
		if len(parts) != 3 || !strings.HasPrefix(parts[2], "/") {
			return nil, fmt.Errorf("landlock: decode: rule %q", rec)
		}
		a, err := strconv.ParseUint(parts[0], 16, 64)
		if err != nil {
			return nil, fmt.Errorf("landlock: decode: rule %q: %w", rec, err)
		}
		r := Rule{Path: parts[2], Access: AccessFS(a)}
		switch parts[1] {
		case "d", "d!":
			r.Dir = true
		case "f", "f!":
		default:
			return nil, fmt.Errorf("landlock: decode: rule %q: kind %q", rec, parts[1])
		}
		r.Must = strings.HasSuffix(parts[1], "!")
		rs.Rules = append(rs.Rules, r)
	}
	return rs, nil
}
