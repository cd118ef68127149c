//go:build !linux

package sandbox

import (
	"os/user"
	"strconv"
)

// passwdHome is the home directory of uid in the password database. Outside
// Linux os/user costs nothing extra (macOS links libSystem anyway) and asks
// Directory Services, which /etc/passwd would miss.
func passwdHome(uid int) string {
	u, err := user.LookupId(strconv.Itoa(uid))
	if err != nil {
		return ""
	}
	return u.HomeDir
}

// fsPlace cannot see through bind mounts here: there is no mount table
// to read, and macOS has no bind mounts to see through.
func (r *resolver) fsPlace(string) (dev, inside string, ok bool) { return "", "", false }
