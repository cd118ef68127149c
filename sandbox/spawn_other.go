//go:build !linux

package sandbox

// fold exists only on Linux, where bwrap reports on a status descriptor;
// elsewhere NewCmd probes like Command and Cmd runs its exec.Cmd as is.
type fold struct {
	tail  *tail
	plan  *plan
	ready func() error
	ph    *phRun
}

func newFold(*Cmd, *plan, hostFacts, []WrapFile) (*fold, error) { return nil, nil }

func (f *fold) start(c *Cmd) error {
	if err := f.readyToRun(); err != nil {
		return err
	}
	return c.Cmd.Start()
}

func (f *fold) prepareNet(*Cmd) {}

// netThread is Linux's network thread; none here.
type netThread struct{}

func earlyNetThread(Config) *netThread      { return nil }
func (*netThread) cancel()                  {}
func (f *fold) adoptEarly(*Cmd, *netThread) {}
func (f *fold) dropNet()                    {}

func (f *fold) wait(c *Cmd) error { return c.Cmd.Wait() }

// sees is true: macOS denies by path, and a denied path is still there.
func (f *fold) sees(string) bool { return true }

func (f *fold) unenforced() []string { return nil }
