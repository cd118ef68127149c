//go:build !linux

package sandbox

// hostWatch exists only on Linux: the macOS profile denies by path, so a
// file that appears under a hidden name is denied like the one it replaced.
type hostWatch struct{}

func startWatch(*plan) (*hostWatch, error) { return nil, nil }
func addWatches(*plan) (*hostWatch, func() error, error) {
	return nil, nil, nil
}
func (w *hostWatch) run(func())   {}
func (w *hostWatch) stop() string { return "" }
