//go:build !linux

package main

// hugeHeap is Linux's (hugeheap_linux.go).
func hugeHeap() {}
