//go:build !linux

package sandbox

// checkedSpawn exists only on Linux, where bwrap reports on a status
// descriptor; elsewhere NewCmd probes like Command and Cmd runs its exec.Cmd as is.
type checkedSpawn struct {
	tail  *tail
	plan  *plan
	ready func() error
	ph    *phRun
}

func newCheckedSpawn(*Cmd, *plan, hostFacts, []WrapFile) (*checkedSpawn, error) { return nil, nil }

func (f *checkedSpawn) start(c *Cmd) error {
	if err := f.readyToRun(); err != nil {
		return err
	}
	return c.Cmd.Start()
}

func (f *checkedSpawn) prepareNet(*Cmd) {}

// netThread is Linux's network thread; none here.
type netThread struct{}

func earlyNetThread(Config) *netThread              { return nil }
func (*netThread) cancel()                          {}
func (f *checkedSpawn) adoptEarly(*Cmd, *netThread) {}
func (f *checkedSpawn) dropNet()                    {}

func (f *checkedSpawn) wait(c *Cmd) error { return c.Cmd.Wait() }

// sees is true: macOS denies by path, and a denied path is still there.
func (f *checkedSpawn) sees(string) bool { return true }

func (f *checkedSpawn) unenforced() []string { return nil }
