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
