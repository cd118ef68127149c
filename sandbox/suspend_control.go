//go:build sandtable_control_nosuspend

package sandbox

// A build with this tag drops the watch section's suspend row: the
// control of TestSuspendStopsSandbox (cmd/sandtable), which shows the
// sandbox reading the terminal after ^Z without it.
func init() {
	for i := range watchRows {
		if watchRows[i].of == watchSuspend {
			watchRows[i].rule = ""
		}
	}
}
