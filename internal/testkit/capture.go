package testkit

import (
	"io"
	"strings"
	"sync"
)

// Capture is what a reader (a terminal's master side, say) has given so
// far, read in the background until it fails.
type Capture struct {
	mu  sync.Mutex
	out strings.Builder
	// Done is closed once the reader has failed (its end of file).
	Done chan struct{}
}

// CaptureFrom starts reading r into a new Capture.
func CaptureFrom(r io.Reader) *Capture {
	c := &Capture{Done: make(chan struct{})}
	go func() {
		defer close(c.Done)
		b := make([]byte, 4096)
		for {
			n, err := r.Read(b)
			c.mu.Lock()
			c.out.Write(b[:n])
			c.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return c
}

// String is everything read so far.
func (c *Capture) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.out.String()
}
