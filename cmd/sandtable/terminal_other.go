//go:build !linux && !darwin

package main

// savedTerminal is empty where sandtable does not save terminals.
type savedTerminal struct{}

func saveTerminals() []savedTerminal   { return nil }
func restoreTerminals([]savedTerminal) {}

func isTerminal(int) bool { return false }
