package proxy

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
	"runtime"
	"slices"
	"strconv"
	"strings"
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
// 127.0.0.1, interleaved (one round is one download each way): direct,
// through each bare relay (bareRelays: the least any relay between the
// same client and server costs), through mode proxy's server by HTTP
// forwarding, and through a CONNECT tunnel (plain HTTP inside, so that the
// relays are compared, not TLS). The server and the client, one HTTP/1.1
// client for every way, are two child processes, as the internet and the
// sandboxed command would be; the proxy and the bare relays run in the
// benchmark's process, as the proxy runs in the caller's.
//
// Per way it reports the median over the rounds of: MB/s and its ratio to
// direct's; the CPU the download cost per MB, all of it (client, server,
// relay process and the kernel's softirq threads) and each part; the
// cores that kept busy (that CPU over the wall time; and the client's
// alone), the cores' worth of runnable time spent waiting for a CPU, and
// the machine's idle cores. And
// from those, two upper bounds on the way's share of direct: cpu-bound,
// the throughput its CPU per MB allows on every core of the machine, over
// direct's; cpu-ratio, direct's CPU per MB over the way's, which bounds
// the share only when direct keeps every core busy (docs/performance.md).
func BenchmarkProxyDownload(b *testing.B) {
	server := downloadChild(b, "download-server")
	srv := bufio.NewScanner(server.out)
	if !srv.Scan() {
		b.Fatalf("download server: no address: %v", srv.Err())
	}
	addr := srv.Text()
	client := downloadChild(b, "download-client", strconv.Itoa(b.N), strconv.Itoa(server.cmd.Process.Pid))
	proxy := loopProxy(b, Config{Private: []string{addr}})
	ways := []string{"direct"}
	line := "direct=" + addr
	for _, r := range bareRelays {
		ways = append(ways, r.way)
		line += " " + r.way + "=" + startBareRelay(b, r, addr)
	}
	for _, w := range proxyWays {
		ways = append(ways, w)
		line += " " + w + "=" + proxy
	}
	b.ResetTimer()
	if _, err := fmt.Fprintln(client.in, line); err != nil {
		b.Fatal(err)
	}
	got := map[string][]downloadStat{}
	out := bufio.NewScanner(client.out)
	for out.Scan() {
		d, err := parseDownloadStat(out.Text())
		if err != nil {
			b.Fatalf("download client: %v", err)
		}
		got[d.way] = append(got[d.way], d)
	}
	b.StopTimer()
	mbps := map[string]float64{}
	cpuMB := map[string]float64{}
	for _, way := range ways {
		ds := got[way]
		if len(ds) != b.N {
			b.Fatalf("download client: %d %s downloads, want %d", len(ds), way, b.N)
		}
		mbps[way] = downloadSize / 1e6 / (medianOf(ds, func(d downloadStat) float64 { return d.wall.Seconds() }))
		b.ReportMetric(mbps[way], way+"-MB/s")
		if !cpuAccounting {
			continue
		}
		perMB := func(f func(downloadStat) time.Duration) float64 {
			return medianOf(ds, func(d downloadStat) float64 { return float64(f(d).Microseconds()) / (downloadSize / 1e6) })
		}
		cores := func(f func(downloadStat) time.Duration) float64 {
			return medianOf(ds, func(d downloadStat) float64 { return f(d).Seconds() / d.wall.Seconds() })
		}
		cpuMB[way] = perMB(downloadStat.total)
		b.ReportMetric(cpuMB[way], way+"-cpu-us/MB")
		b.ReportMetric(perMB(func(d downloadStat) time.Duration { return d.client }), way+"-client-us/MB")
		b.ReportMetric(perMB(func(d downloadStat) time.Duration { return d.server }), way+"-server-us/MB")
		b.ReportMetric(perMB(func(d downloadStat) time.Duration { return d.relay }), way+"-relay-us/MB")
		b.ReportMetric(perMB(func(d downloadStat) time.Duration { return d.softirqd }), way+"-softirqd-us/MB")
		b.ReportMetric(cores(downloadStat.total), way+"-cores")
		b.ReportMetric(cores(func(d downloadStat) time.Duration { return d.client }), way+"-client-cores")
		b.ReportMetric(cores(func(d downloadStat) time.Duration { return d.wait }), way+"-wait-cores")
		b.ReportMetric(cores(func(d downloadStat) time.Duration { return d.idle }), way+"-idle-cores")
	}
	for _, way := range ways[1:] {
		b.ReportMetric(mbps[way]/mbps["direct"], way+"/direct")
		if cpuAccounting {
			b.ReportMetric(float64(runtime.NumCPU())*1e6/cpuMB[way]/mbps["direct"], way+"-cpu-bound")
			b.ReportMetric(cpuMB["direct"]/cpuMB[way], way+"-cpu-ratio")
		}
	}
	for _, way := range proxyWays {
		b.ReportMetric(mbps[way]/mbps["bare-copy"], way+"/bare-copy")
	}
	reportZerocopy(b)
}

type childProc struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out io.Reader
}

// downloadChild starts the test binary as TestProxyDownloadHelper with
// args, ended when the benchmark is.
func downloadChild(b *testing.B, args ...string) childProc {
	cmd := exec.Command(os.Args[0], append([]string{"-test.run=^TestProxyDownloadHelper$"}, args...)...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		in.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return childProc{cmd, in, out}
}

// downloadStat is one download as the client reports it: how long it took
// and the CPU each party spent meanwhile (cpuSample).
type downloadStat struct {
	way  string
	wall time.Duration
	cpuSample
}

func (d downloadStat) total() time.Duration { return d.client + d.server + d.relay + d.softirqd }

func (d downloadStat) String() string {
	return fmt.Sprintf("%s %d %d %d %d %d %d %d", d.way, d.wall, d.client, d.server, d.relay, d.softirqd, d.wait, d.idle)
}

func parseDownloadStat(line string) (downloadStat, error) {
	f := strings.Fields(line)
	if len(f) != 8 {
		return downloadStat{}, fmt.Errorf("want WAY and 7 numbers, got %q", line)
	}
	var n [7]time.Duration
	for i := range n {
		v, err := strconv.ParseInt(f[i+1], 10, 64)
		if err != nil {
			return downloadStat{}, fmt.Errorf("%q: %w", line, err)
		}
		n[i] = time.Duration(v)
	}
	return downloadStat{f[0], n[0], cpuSample{n[1], n[2], n[3], n[4], n[5], n[6]}}, nil
}

func medianOf(ds []downloadStat, f func(downloadStat) float64) float64 {
	v := make([]float64, len(ds))
	for i, d := range ds {
		v[i] = f(d)
	}
	slices.Sort(v)
	if n := len(v); n%2 == 1 {
		return v[n/2]
	} else {
		return (v[n/2-1] + v[n/2]) / 2
	}
}

// TestProxyDownloadHelper is BenchmarkProxyDownload's two children:
//
//	sandbox.test -test.run '^TestProxyDownloadHelper$' download-server
//	sandbox.test -test.run '^TestProxyDownloadHelper$' download-client ROUNDS SERVER-PID
//
// The server serves 100 MB on 127.0.0.1 and prints its address. The client
// reads one line of WAY=ADDRESS words from stdin (the address a way's
// client dials: the server, a bare relay to it, or the proxy) and prints
// one downloadStat line for each download of ROUNDS rounds, each round the
// ways in the line's order; the relay is its parent process.
func TestProxyDownloadHelper(t *testing.T) {
	args := flag.Args()
	switch {
	case len(args) == 1 && args[0] == "download-server":
		downloadServer()
	case len(args) == 3 && args[0] == "download-client":
		rounds, err1 := strconv.Atoi(args[1])
		server, err2 := strconv.Atoi(args[2])
		if err1 != nil || err2 != nil {
			t.Fatalf("want ROUNDS SERVER-PID, got %q", args[1:])
		}
		downloadClient(t, rounds, server)
	default:
		t.Skip("a helper process for BenchmarkProxyDownload")
	}
	os.Exit(0)
}

func downloadServer() {
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
	fmt.Println(strings.TrimPrefix(srv.URL, "http://"))
	_, _ = io.Copy(io.Discard, os.Stdin) // until the benchmark ends
}

func downloadClient(t *testing.T, rounds, server int) {
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
	direct := addrs[slices.Index(ways, "direct")]
	acct := newCPUAccount(server, os.Getppid())
	buf := make([]byte, 64<<10)
	for range rounds {
		for i, way := range ways {
			before := acct.sample()
			d, err := download(way, direct, addrs[i], buf)
			if err != nil {
				fmt.Fprintf(os.Stderr, "download %s: %v\n", way, err)
				os.Exit(1)
			}
			fmt.Println(downloadStat{way, d, acct.sample().minus(before)})
		}
	}
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
