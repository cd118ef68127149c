// Package cgroup makes, fills and removes the sandbox's run groups: one
// cgroup per run and controller, beneath the group this process is in and
// never anywhere else, named for its owner so that the groups of a caller
// that was killed are swept by a later one (owner_linux.go). It owns the
// cgroup file systems (v1 and v2) and nothing of the sandbox's policy:
// which limits a run has, and their values, are the caller's (package
// sandbox's limits rows). Linux only; it imports only the standard
// library.
package cgroup
