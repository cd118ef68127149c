package main

import (
	"fmt"

	"github.com/sandtable/sandtable/sandbox"
)

// fullCacheHint is what run adds after a failed CMD when the file system
// holding the tool caches is full now (no byte, or no inode, free): a
// tool that failed to write its cache there may have said so in other
// words (go build: "package fmt is not in std"). A spawn on a file system
// that was full already was refused before it ran (rows no-full-cache and
// no-inodeless-cache); this is one that filled it. "" otherwise.
func fullCacheHint() string {
	root, err := sandbox.CacheRoot()
	if err != nil || root == "" {
		return ""
	}
	dir, free, inodes, files, ok := fsFree(root)
	if !ok || free > 0 && (files == 0 || inodes > 0) {
		return ""
	}
	return fmt.Sprintf("sandtable: the tool caches' file system (%s) is full: %d bytes and %d inodes free; a tool that failed writing its cache there may have said it otherwise "+
		"(go: \"package fmt is not in std\"): free space there, set XDG_CACHE_HOME elsewhere, or use --no-cache", dir, free, inodes)
}
