//go:build !unix

package landlock

func isNotDir(error) bool { return false }
