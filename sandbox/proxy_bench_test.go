package sandbox

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// downloadSize is what one download of BenchmarkProxyDownload fetches.
const downloadSize = 100 << 20

// proxyWays are the ways through the proxy BenchmarkProxyDownload
// fetches it; each round also fetches it direct first, then through each
// bare relay (bareRelays), then these.
var proxyWays = []string{"forward", "connect"}

// BenchmarkProxyDownload times 100 MB downloads from a server on
// 127.0.0.1 three ways, interleaved (one round is one download each way):
// direct, through each bare relay (bareRelays: the least any relay
// between the same client and server costs), through mode proxy's server
// by HTTP forwarding, and through a CONNECT tunnel (plain HTTP inside, so
// that the relays are compared, not TLS). The server and the client, one HTTP/1.1 client for all three, run
// in a child process, as the internet and the sandboxed command would; the
// proxy runs in the benchmark's process, as it runs in the caller's. It
// reports each way's median MB/s over the rounds, the ratios of the
// medians to direct's (README, Performance: the target is at least 0.8),
// and the proxy's to the bare copy relay's.
func BenchmarkProxyDownload(b *testing.B) {
	child := exec.Command(os.Args[0], "-test.run=^TestProxyDownloadHelper$", "download-helper", strconv.Itoa(b.N))
	child.Stderr = os.Stderr
	in, err := child.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	outp, err := child.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := child.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() {
		in.Close()
		_ = child.Process.Kill()
		_ = child.Wait()
	}()
	out := bufio.NewScanner(outp)
	if !out.Scan() {
		b.Fatalf("download helper: no server address: %v", out.Err())
	}
	server := out.Text()
	proxy := loopProxy(b, Network{Mode: NetworkProxy, Private: []string{server}})
	ways := []string{"direct"}
	line := "direct=" + server
	for _, r := range bareRelays {
		ways = append(ways, r.way)
		line += " " + r.way + "=" + startBareRelay(b, r, server)
	}
	for _, w := range proxyWays {
		ways = append(ways, w)
		line += " " + w + "=" + proxy
	}
	b.ResetTimer()
	if _, err := fmt.Fprintln(in, line); err != nil {
		b.Fatal(err)
	}
	took := map[string][]float64{}
	cpu := map[string][]float64{}
	proxyCPU := cpuTime()
	for out.Scan() {
		f := strings.Fields(out.Text())
		if len(f) != 3 {
			b.Fatalf("download helper: %q", out.Text())
		}
		v, err1 := strconv.ParseFloat(f[1], 64)
		c, err2 := strconv.ParseFloat(f[2], 64)
		if err1 != nil || err2 != nil {
			b.Fatalf("download helper: %q", out.Text())
		}
		took[f[0]] = append(took[f[0]], v)
		cpu[f[0]] = append(cpu[f[0]], c)
	}
	proxyCPU = cpuTime() - proxyCPU
	b.StopTimer()
	mbps := map[string]float64{}
	for _, way := range ways {
		if len(took[way]) != b.N {
			b.Fatalf("download helper: %d %s downloads, want %d", len(took[way]), way, b.N)
		}
		slices.Sort(took[way])
		mbps[way] = downloadSize / 1e6 / (median(took[way]) / 1e9)
		b.ReportMetric(mbps[way], way+"-MB/s")
	}
	for _, way := range ways[1:] {
		b.ReportMetric(mbps[way]/mbps["direct"], way+"/direct")
	}
	for _, way := range proxyWays {
		b.ReportMetric(mbps[way]/mbps["bare-copy"], way+"/bare-copy")
	}
	for _, way := range ways {
		slices.Sort(cpu[way])
		b.ReportMetric(median(cpu[way])/1e6, way+"-client+server-cpu-ms")
	}
	b.ReportMetric(float64(proxyCPU.Milliseconds())/float64((len(ways)-1)*b.N), "relay-cpu-ms/download")
}

func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

// TestProxyDownloadHelper is BenchmarkProxyDownload's child:
//
//	sandbox.test -test.run '^TestProxyDownloadHelper$' download-helper ROUNDS
//
// It serves 100 MB on 127.0.0.1, prints the server's address, reads one
// line of WAY=ADDRESS words from stdin (the address a way's client dials),
// and prints "WAY NANOSECONDS CPU-NANOSECONDS" for each download of ROUNDS
// rounds, each round the ways in the line's order.
func TestProxyDownloadHelper(t *testing.T) {
	args := flag.Args()
	if len(args) != 2 || args[0] != "download-helper" {
		t.Skip("a helper process for BenchmarkProxyDownload")
	}
	rounds, err := strconv.Atoi(args[1])
	if err != nil {
		t.Fatal(err)
	}
	chunk := []byte(strings.Repeat("x", 256<<10))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(downloadSize))
		for n := 0; n < downloadSize; n += len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	server := strings.TrimPrefix(srv.URL, "http://")
	fmt.Println(server)
	line, err := bufio.NewReader(os.Stdin).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	var ways, addrs []string
	for _, f := range strings.Fields(line) {
		way, addr, ok := strings.Cut(f, "=")
		if !ok {
			t.Fatalf("want WAY=ADDRESS words, got %q", f)
		}
		ways, addrs = append(ways, way), append(addrs, addr)
	}
	buf := make([]byte, 64<<10)
	for range rounds {
		for i, way := range ways {
			cpu0 := cpuTime()
			d, err := download(way, server, addrs[i], buf)
			if err != nil {
				fmt.Fprintf(os.Stderr, "download %s: %v\n", way, err)
				os.Exit(1)
			}
			fmt.Println(way, d.Nanoseconds(), (cpuTime() - cpu0).Nanoseconds())
		}
	}
	os.Exit(0)
}

// download fetches http://server/ one way, dialing addr (the server, a
// bare relay to it, or the proxy), reading the body 64 KiB at a time, and
// returns how long it took from the dial to the last byte.
func download(way, server, addr string, buf []byte) (time.Duration, error) {
	start := time.Now()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	br := bufio.NewReaderSize(c, len(buf))
	target := "/"
	switch way {
	case "forward":
		target = "http://" + server + "/"
	case "connect":
		fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", server, server)
		resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
		if err != nil {
			return 0, err
		}
		if resp.StatusCode != http.StatusOK {
			return 0, fmt.Errorf("CONNECT: %s", resp.Status)
		}
	}
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", target, server)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return 0, err
	}
	n, err := io.CopyBuffer(struct{ io.Writer }{io.Discard}, resp.Body, buf)
	resp.Body.Close()
	if err != nil || n != downloadSize {
		return 0, fmt.Errorf("%d bytes: %v", n, err)
	}
	return time.Since(start), nil
}

// cpuTime is the CPU time this process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
