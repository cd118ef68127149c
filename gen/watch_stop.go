package gen

import (
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// watchStopMaxSeconds is the longest stop-timeout a suspend row may give:
// the ^Z waits that long, and a process that will not stop keeps running
// (holding the terminal) meanwhile.
const watchStopMaxSeconds = 10

// watchStopWant is what a suspend row's stop-timeout may be.
var watchStopWant = "whole seconds, 1s-" + strconv.Itoa(watchStopMaxSeconds) + "s"

// watchStop reads a watch row's stop-timeout: only a suspend row has one,
// and it must. It returns the seconds, 0 when there is none or it is bad
// (an error is recorded).
func (l *loader) watchStop(e *yaml.Node, id, watchFor string) int {
	v := lookup(e, "stop-timeout")
	suspend := watchFor == "suspend"
	switch {
	case v == nil && suspend:
		l.at(l.pos(e), id, "watch: missing key stop-timeout (want %s, how long the sandbox may take to stop before the run is killed)", watchStopWant)
		return 0
	case v == nil:
		return 0
	case !suspend && watchFor != "":
		l.at(l.pos(v), id, "stop-timeout on a %s row (want it on the suspend row only)", watchFor)
		return 0
	}
	s, ok := l.str(v, id, "stop-timeout")
	if !ok {
		return 0
	}
	n, err := strconv.Atoi(strings.TrimSuffix(s, "s"))
	if err != nil || !strings.HasSuffix(s, "s") || n < 1 || n > watchStopMaxSeconds || s != strconv.Itoa(n)+"s" {
		l.at(l.pos(v), id, "stop-timeout %q (want %s)", s, watchStopWant)
		return 0
	}
	return n
}
