package sandbox

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"strconv"
	"strings"
	"time"
)

// passwdHome is the home directory of uid in the password database, what
// os/user would say, without importing os/user: with cgo (the default) that
// links the binary against libc, and the dynamic loader alone costs every
// sandtable run about 2 ms on a small VM, a fifth of a sandboxed spawn.
// /etc/passwd answers for local users, as os/user does without cgo;
// getent(1) asks NSS (LDAP, sssd) for the rest, as os/user does with cgo.
// A spawn asks once per process (ownPasswdHome).
func passwdHome(uid int) string {
	if data, err := os.ReadFile("/etc/passwd"); err == nil {
		if home := passwdEntryHome(data, uid); home != "" {
			return home
		}
	}
	// NSS can hang on an unreachable directory server; a home it cannot
	// name in time is one there is no checking against.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	for _, getent := range []string{"/usr/bin/getent", "/bin/getent"} {
		cmd := exec.CommandContext(ctx, getent, "passwd", strconv.Itoa(uid))
		// Not the caller's working directory or loader variables: NSS
		// loads libraries, and the workspace may be where it would look.
		cmd.Dir, cmd.Env = "/", []string{"PATH=/usr/bin:/bin"}
		out, err := cmd.Output()
		if err == nil {
			return passwdEntryHome(out, uid)
		}
		if !errors.Is(err, fs.ErrNotExist) {
			break // getent ran: NSS has no such user
		}
	}
	return ""
}

// passwdEntryHome finds uid in passwd(5) lines (name:password:uid:gid:gecos:home:shell).
func passwdEntryHome(data []byte, uid int) string {
	want := strconv.Itoa(uid)
	for line := range strings.Lines(string(data)) {
		f := strings.Split(strings.TrimRight(line, "\r\n"), ":")
		if len(f) >= 7 && f[2] == want {
			return f[5]
		}
	}
	return ""
}

// readMounts parses /proc/self/mountinfo (proc(5)), in mount order.
func readMounts() []mountEntry {
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil
	}
	var ms []mountEntry
	for line := range strings.Lines(string(data)) {
		f := strings.Fields(line)
		if len(f) < 5 {
			continue
		}
		ms = append(ms, mountEntry{dev: f[2], root: unescapeMount(f[3]), point: unescapeMount(f[4])})
	}
	return ms
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// fsPlace returns the file system p is on and p's path inside it, through
// whatever bind mounts lead there, so two spellings of one directory
// compare equal; ok is false when the mount table cannot say.
func (r *resolver) fsPlace(p string) (dev, inside string, ok bool) {
	if r.mounts == nil {
		r.mounts = readMounts()
		if r.mounts == nil {
			r.mounts = []mountEntry{}
		}
	}
	best := -1
	for i, m := range r.mounts {
		if (p == m.point || m.point == "/" || strings.HasPrefix(p, m.point+"/")) &&
			(best < 0 || len(m.point) >= len(r.mounts[best].point)) {
			best = i // the last of equal mount points is the one on top
		}
	}
	if best < 0 {
		return "", "", false
	}
	m := r.mounts[best]
	rest := strings.TrimPrefix(p, m.point)
	if m.point == "/" {
		rest = p
	}
	return m.dev, path.Join(m.root, rest), true
}
