package sandbox

import "bytes"

// The wgetrc format: a wgetrc read as wget's init.c reads it (run_wgetrc,
// parse_line, command_by_name): one line at a time up to its LF, nothing
// after a NUL, trimmed of C white space; empty and # lines are nothing;
// else NAME = VALUE, NAME being letters, digits, - and _, compared with -
// and _ dropped and case ignored. A line wget rejects is replaced by one
// it rejects too; comments are dropped.

// wgetSpace is C's isspace in the C locale.
func wgetSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

func wgetNameChar(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_'
}

// wgetCommand is a command name as command_by_name compares it: without
// - and _, lower case.
func wgetCommand(name string) string {
	b := make([]byte, 0, len(name))
	for i := 0; i < len(name); i++ {
		if c := name[i]; c != '-' && c != '_' {
			b = append(b, gitLower(c))
		}
	}
	return string(b)
}

// wgetLine is parse_line: the trimmed line, and for a command its name
// and value; ok is false for a syntax error, and name "" with ok for an
// empty or comment line.
func wgetLine(line []byte) (trimmed []byte, name, value string, ok bool) {
	if i := bytes.IndexByte(line, 0); i >= 0 {
		line = line[:i]
	}
	s, e := 0, len(line)
	for s < e && wgetSpace(line[s]) {
		s++
	}
	for e > s && wgetSpace(line[e-1]) {
		e--
	}
	t := line[s:e]
	if len(t) == 0 || t[0] == '#' {
		return t, "", "", true
	}
	p := 0
	for p < len(t) && wgetNameChar(t[p]) {
		p++
	}
	name = string(t[:p])
	for p < len(t) && wgetSpace(t[p]) {
		p++
	}
	if p == len(t) || t[p] != '=' {
		return t, "", "", false
	}
	p++
	for p < len(t) && wgetSpace(t[p]) {
		p++
	}
	return t, name, string(t[p:]), true
}

// redactWgetrc is the wgetrc format's redaction of data.
func redactWgetrc(data []byte, rf redactFile) []byte {
	removed := make(map[string]bool, len(rf.keys))
	for _, k := range rf.keys {
		removed[wgetCommand(k)] = true
	}
	out := make([]byte, 0, len(data))
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line = data[:i+1]
		}
		data = data[len(line):]
		t, name, value, ok := wgetLine(line)
		switch {
		case !ok:
			out = append(out, "!sandtable: a line wget rejects, not served\n"...)
		case name == "" && (len(t) == 0 || t[0] == '#'):
			if len(t) == 0 {
				out = append(out, '\n')
			}
		case removed[wgetCommand(name)]:
		default:
			if rf.urls {
				v := []byte(stripURLCredentials(value, true))
				for len(v) > 0 && wgetSpace(v[0]) {
					v = v[1:]
				}
				for len(v) > 0 && wgetSpace(v[len(v)-1]) {
					v = v[:len(v)-1]
				}
				value = string(v) // wget trims what the credentials stood before
			}
			out = append(out, name+" = "+value+"\n"...)
		}
	}
	return out
}
