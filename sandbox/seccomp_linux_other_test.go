//go:build linux && !amd64 && !arm64

package sandbox

// legacyCalls and absentCalls are empty where there is no filter to check.
var legacyCalls = map[string]uint32{}

var absentCalls = []string{}
