package sandbox

import "strings"

// gitValue is how git reads the value of a protect row's keys (the row's
// value column).
type gitValue uint8

const (
	gitValuePath    gitValue = iota + 1 // a pathname, ~/ expanded
	gitValueProgram                     // the whole value is the program, run without a shell
	gitValueProxy                       // a program, before an optional " for DOMAIN"
	gitValueCommand                     // a shell command: the program is its first word
	gitValueAlias                       // a shell command after !, else a git command
	gitValueHelper                      // a shell command after !, an absolute path with arguments, else a git credential-NAME
)

// gitRel is what a relative path in such a value is taken against (the
// row's relative-to column).
type gitRel uint8

const (
	gitRelWorktree gitRel = iota + 1 // the top of the work tree (the git directory of a bare repository)
	gitRelGitdir                     // the git directory
	gitRelNone                       // unknown: only an absolute path counts
)

// gitKeyValue is a value of one protect row's key or variable, and where
// it was read (a config file, or a variable's name).
type gitKeyValue struct {
	row   int
	value string
	from  string
}

// matchGitKey reports whether e is the key pattern names: section.name,
// section.sub.name, section.*.name (any subsection) or section.* (any
// name, no subsection), lower-cased; a subsection is compared in any case.
func matchGitKey(pattern string, e gitEntry) bool {
	section, rest, _ := strings.Cut(pattern, ".")
	if section != e.section {
		return false
	}
	sub, name, hasSub := strings.Cut(rest, ".")
	if !hasSub {
		return e.sub == "" && (rest == "*" || rest == e.name)
	}
	if sub == "*" {
		return e.sub != "" && name == e.name
	}
	return strings.EqualFold(sub, e.sub) && name == e.name
}

// gitKeyValues appends the values among entries that rows of the protect
// section name, read from the file from.
func gitKeyValues(out []gitKeyValue, entries []gitEntry, from string) []gitKeyValue {
	for _, e := range entries {
		if e.noValue || e.value == "" {
			continue
		}
		for i := range protectedPaths {
			row := &protectedPaths[i]
			if row.base != protectGitKey {
				continue
			}
			for _, k := range row.keys {
				if matchGitKey(k, e) {
					out = append(out, gitKeyValue{row: i, value: e.value, from: from})
					break
				}
			}
		}
	}
	return out
}

// gitPathIn is the path in value that git runs or loads, read as v says,
// with ~/ expanded against home; "" when it names none: a program without
// a slash (git looks it up on PATH), a boolean, a git alias, a helper git
// runs as git credential-NAME, a ~user path, or a command whose program
// only a shell could tell ($VAR, `cmd`).
func gitPathIn(v gitValue, value, home string) string {
	var p string
	switch v {
	case gitValuePath:
		p = value
	case gitValueProgram:
		p = value
		if !strings.Contains(p, "/") {
			return ""
		}
		return p // no shell: ~ is a name here
	case gitValueProxy:
		if cmd, _, ok := strings.Cut(value, " for "); ok {
			value = cmd
		}
		if !strings.Contains(value, "/") {
			return ""
		}
		return value
	case gitValueCommand:
		p = shellProgram(value)
	case gitValueAlias:
		rest, ok := strings.CutPrefix(value, "!")
		if !ok {
			return ""
		}
		p = shellProgram(rest)
	case gitValueHelper:
		if rest, ok := strings.CutPrefix(value, "!"); ok {
			p = shellProgram(rest)
		} else if strings.HasPrefix(value, "/") {
			p = shellProgram(value)
		}
	}
	if p == "" {
		return ""
	}
	if rest, ok := strings.CutPrefix(p, "~"); ok {
		if rest != "" && rest[0] != '/' || home == "" {
			return "" // ~user: never followed
		}
		p = home + rest
	}
	if v != gitValuePath && !strings.Contains(p, "/") {
		return ""
	}
	return p
}

// shellProgram is the program a POSIX shell runs for the command cmd: its
// first word after variable assignments and exec, command or env, with
// quotes removed; "" when the shell alone could say ($, `, a subshell).
func shellProgram(cmd string) string {
	i := 0
	for {
		for i < len(cmd) && (cmd[i] == ' ' || cmd[i] == '\t' || cmd[i] == '\n') {
			i++
		}
		word, next, ok := gitShellWord(cmd, i)
		if !ok || word == "" {
			return ""
		}
		i = next
		if eq := strings.IndexByte(word, '='); eq > 0 && isShellName(word[:eq]) {
			continue // an assignment before the command
		}
		switch word {
		case "exec", "command", "env":
			continue
		}
		return word
	}
}

func isShellName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || isGitAlpha(c) || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return s != ""
}

// gitShellWord reads one shell word of cmd from i, unquoted; false when it
// holds an expansion or starts with an operator.
func gitShellWord(cmd string, i int) (string, int, bool) {
	var b strings.Builder
	for i < len(cmd) {
		c := cmd[i]
		switch c {
		case ' ', '\t', '\n', ';', '&', '|', '<', '>':
			return b.String(), i, b.Len() > 0 || c == ' ' || c == '\t' || c == '\n'
		case '(', ')', '$', '`':
			return "", i, false
		case '\\':
			if i+1 < len(cmd) {
				b.WriteByte(cmd[i+1])
			}
			i += 2
		case '\'':
			end := strings.IndexByte(cmd[i+1:], '\'')
			if end < 0 {
				return "", i, false
			}
			b.WriteString(cmd[i+1 : i+1+end])
			i += end + 2
		case '"':
			i++
			for i < len(cmd) && cmd[i] != '"' {
				switch cmd[i] {
				case '$', '`':
					return "", i, false
				case '\\':
					if i+1 < len(cmd) && strings.IndexByte("$`\"\\\n", cmd[i+1]) >= 0 {
						i++
					}
				}
				b.WriteByte(cmd[i])
				i++
			}
			if i >= len(cmd) {
				return "", i, false
			}
			i++
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String(), i, true
}
