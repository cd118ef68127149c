package sandbox

import (
	"fmt"
	"strings"
	"testing"
	"text/template"
)

// The builders' cost, with the path facts already gathered: these measure
// the generated code alone, which is what runs on every spawn after the
// lstats. scripts/bench-ratios.sh turns the output into the README's ratios
// (1024 paths against 8, the template against the builder).

// benchSizes are the numbers of hidden paths the builders are measured at.
var benchSizes = []int{0, 8, 64, 1024}

// benchPlan is a plan with n hidden paths, half directories and half files,
// under a realistic home, in the shape newPlan returns (mounts sorted).
func benchPlan(n int) *plan {
	const ws = "/home/user/src/project"
	p := &plan{workspace: ws, network: true, netHost: true, callerRoot: true, disableUserns: true}
	for i := range n {
		kind, name := kindDir, fmt.Sprintf("/home/user/.config/tool-%04d", i)
		if i%2 == 1 {
			kind, name = kindFile, fmt.Sprintf("/home/user/.local/share/creds-%04d.json", i)
		}
		p.hidden = append(p.hidden, fact(name, kind, ws))
	}
	p.numberFiles(true)
	p.mounts = sortMounts(linuxMounts(p, nil))
	if err := darwinFacts(p); err != nil { // the macOS facts too: folded patterns, guards
		panic(err)
	}
	return p
}

func BenchmarkLinuxArgs(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("hidden=%d", n), func(b *testing.B) {
			p := benchPlan(n)
			b.ReportAllocs()
			var a []string
			for b.Loop() {
				a = linuxArgs(p)
			}
			_ = a
		})
	}
}

func BenchmarkDarwinProfile(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("hidden=%d", n), func(b *testing.B) {
			p := benchPlan(n)
			b.ReportAllocs()
			b.SetBytes(int64(len(darwinProfile(p))))
			var s string
			for b.Loop() {
				s = darwinProfile(p)
			}
			_ = s
		})
	}
}

// BenchmarkDarwinProfileFloor is the least any builder that returns the
// profile as a new string can cost: one allocation of its exact size and
// one copy of its bytes, with nothing to compute. At 0 hidden paths that is
// most of the generated builder's time; the rest of the allocation's cost
// is the garbage collector's, whose share grows with bytes allocated.
func BenchmarkDarwinProfileFloor(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("hidden=%d", n), func(b *testing.B) {
			text := darwinProfile(benchPlan(n))
			b.ReportAllocs()
			b.SetBytes(int64(len(text)))
			var s string
			for b.Loop() {
				s = strings.Clone(text)
			}
			_ = s
		})
	}
}

// BenchmarkDarwinProfileTemplate renders the same profile with text/template,
// the obvious way to write a profile builder by hand; the generated builder
// is measured against it.
func BenchmarkDarwinProfileTemplate(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("hidden=%d", n), func(b *testing.B) {
			p := benchPlan(n)
			d := templateData(p)
			b.ReportAllocs()
			b.SetBytes(int64(len(darwinProfile(p))))
			var sb strings.Builder
			for b.Loop() {
				sb.Reset()
				if err := profileTemplate.Execute(&sb, d); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// profileTemplate is a hand-written reference for rules/darwin.yaml. It is
// kept equal to darwinProfile's output by TestProfileTemplateMatches, so the
// comparison is between two renderings of the same text.
var profileTemplate = template.Must(template.New("sbpl").Parse(`(version 1)
(deny default)
(allow process-exec*)
(allow process-fork)
(allow signal (target same-sandbox))
(allow process-info* (target same-sandbox))
(allow mach-priv-task-port (target same-sandbox))
{{with .ProxyPort}}(allow network-outbound (remote ip "localhost:{{.}}"))
{{end}}{{if .Network}}(allow network-outbound (remote ip "*:*"))
(allow network-bind (local ip "localhost:*"))
(allow network-inbound (local ip "localhost:*"))
(allow system-socket
    (require-all (socket-domain AF_SYSTEM) (socket-protocol 2))
    (socket-domain AF_UNIX))
(allow network-outbound (remote unix-socket (path-literal "/private/var/run/mDNSResponder")))
{{end}}(allow network-outbound (remote unix-socket (path-literal "/private/var/run/syslog")))
(allow sysctl-read
    (sysctl-name "hw.activecpu")
    (sysctl-name "hw.byteorder")
    (sysctl-name "hw.cachelinesize")
    (sysctl-name "hw.cpufamily")
    (sysctl-name "hw.cputype")
    (sysctl-name "hw.l1dcachesize")
    (sysctl-name "hw.l2cachesize")
    (sysctl-name "hw.logicalcpu")
    (sysctl-name "hw.logicalcpu_max")
    (sysctl-name "hw.machine")
    (sysctl-name "hw.memsize")
    (sysctl-name "hw.model")
    (sysctl-name "hw.ncpu")
    (sysctl-name "hw.nperflevels")
    (sysctl-name "hw.pagesize")
    (sysctl-name "hw.physicalcpu")
    (sysctl-name "hw.physicalcpu_max")
    (sysctl-name "kern.argmax")
    (sysctl-name "kern.hostname")
    (sysctl-name "kern.maxfilesperproc")
    (sysctl-name "kern.maxproc")
    (sysctl-name "kern.osproductversion")
    (sysctl-name "kern.osrelease")
    (sysctl-name "kern.ostype")
    (sysctl-name "kern.osvariant_status")
    (sysctl-name "kern.osversion")
    (sysctl-name "kern.secure_kernel")
    (sysctl-name "kern.usrstack64")
    (sysctl-name "kern.version")
    (sysctl-name "machdep.cpu.brand_string")
    (sysctl-name "sysctl.proc_cputype")
    (sysctl-name "vm.loadavg")
    (sysctl-name-prefix "hw.optional.")
    (sysctl-name-prefix "hw.perflevel"))
(allow ipc-posix-sem)
(allow mach-lookup (global-name "com.apple.system.opendirectoryd.libinfo"))
(allow mach-lookup (global-name "com.apple.system.opendirectoryd.membership"))
(allow mach-lookup (global-name "com.apple.logd"))
(allow mach-lookup (global-name "com.apple.system.logger"))
(allow mach-lookup (global-name "com.apple.system.notification_center"))
(allow mach-lookup (global-name "com.apple.cfprefsd.daemon"))
(allow mach-lookup (global-name "com.apple.cfprefsd.agent"))
(allow mach-lookup (global-name "com.apple.bsd.dirhelper"))
(allow mach-lookup (global-name "com.apple.PowerManagement.control"))
{{if .AnyNetwork}}(allow mach-lookup (global-name "com.apple.trustd.agent"))
(allow mach-lookup (global-name "com.apple.SecurityServer"))
(allow mach-lookup (global-name "com.apple.ocspd"))
{{end}}{{if .Network}}(allow mach-lookup (global-name "com.apple.networkd"))
(allow mach-lookup (global-name "com.apple.SystemConfiguration.configd"))
(allow mach-lookup (global-name "com.apple.SystemConfiguration.DNSConfiguration"))
{{end}}{{if .AllMach}}(allow mach*)
{{end}}(allow user-preference-read (preference-domain "kCFPreferencesAnyApplication"))
{{if .AnyNetwork}}(allow user-preference-read
    (preference-domain "com.apple.CFNetwork")
    (preference-domain "com.apple.SystemConfiguration"))
{{end}}(allow file-read*
    (subpath "/usr")
    (subpath "/bin")
    (subpath "/sbin")
    (subpath "/System")
    (subpath "/Library")
    (subpath "/opt")
    (subpath "{{.Workspace}}")
    (literal "/"))
(allow file-write* (subpath "{{.Workspace}}"))
{{with .Tmpdir}}(allow file-read* (subpath "{{.}}"))
(allow file-write* (subpath "{{.}}"))
{{end}}(allow file-read*
    (literal "/tmp")
    (literal "/var")
    (literal "/etc")
    (literal "/private")
    (literal "/private/var"))
(allow file-read* (subpath "/private/etc"))
(allow file-read* (subpath "/private/var/db/timezone"))
(allow file-read* (literal "/private/var/select/sh"))
(allow file-read*
    (literal "/private/var/db/xcode_select_link")
    (subpath "/Applications/Xcode.app/Contents/Developer"))
{{range .Ancestors}}(allow file-read-metadata (literal "{{.}}"))
{{end}}{{with .Home}}(allow file-read*
    (subpath "{{.}}/.rustup")
    (subpath "{{.}}/.cargo/bin")
    (subpath "{{.}}/go")
    (subpath "{{.}}/.pyenv")
    (subpath "{{.}}/.rbenv"))
{{end}}{{with .HomeRegex}}(allow file-read* (regex "^{{.}}/[.]nvm/versions/node/[^/]+/(bin|include|lib|share)(/|$)"))
(allow file-read-metadata (regex "^{{.}}/[.]nvm(/versions(/node(/[^/]+)?)?)?$"))
{{end}}(allow file-read*
    (literal "/dev")
    (literal "/dev/null")
    (literal "/dev/zero")
    (literal "/dev/random")
    (literal "/dev/urandom")
    (literal "/dev/tty")
    (literal "/dev/dtracehelper")
    (literal "/dev/stdin")
    (literal "/dev/stdout")
    (literal "/dev/stderr")
    (subpath "/dev/fd"))
(allow file-write-data
    (literal "/dev/null")
    (literal "/dev/zero")
    (literal "/dev/tty")
    (literal "/dev/dtracehelper")
    (literal "/dev/stdout")
    (literal "/dev/stderr")
    (subpath "/dev/fd"))
(allow file-ioctl
    (literal "/dev/null")
    (literal "/dev/tty")
    (literal "/dev/dtracehelper"))
{{range .Ttys}}(allow file-read* (literal "{{.}}"))
(allow file-write-data (literal "{{.}}"))
(allow file-ioctl (literal "{{.}}"))
{{end}}{{range .Read}}(allow file-read* (subpath "{{.}}"))
{{end}}{{range .Write}}(allow file-read* (subpath "{{.}}"))
(allow file-write* (subpath "{{.}}"))
{{end}}{{range .Hidden}}{{if and (not .Ancestor) (not .File)}}(deny file-read* (subpath "{{.Path}}"))
(deny file-write* (subpath "{{.Path}}"))
{{end}}{{end}}{{range .Hidden}}{{if and (not .Ancestor) .File}}(deny file-read* (literal "{{.Path}}"))
(deny file-write* (literal "{{.Path}}"))
{{end}}{{end}}{{range .Hidden}}{{if not .Ancestor}}(deny network-outbound (remote unix-socket (subpath "{{.Path}}")))
{{end}}{{end}}{{range .Guards}}(deny file-write-unlink (literal "{{.}}"))
(deny file-write-create (literal "{{.}}"))
{{end}}{{range .Hidden}}{{if .Folded}}(deny file-read* (regex "{{.Folded}}"))
(deny file-write* (regex "{{.Folded}}"))
{{end}}{{end}}`))

type templateFact struct {
	Path           string
	Ancestor, File bool
	Folded         string
}

type templateInput struct {
	Workspace, Home   string
	HomeRegex         string
	ProxyPort         string
	AnyNetwork        bool
	Tmpdir            string
	Network, AllMach  bool
	Read, Write       []string
	Ancestors, Guards []string
	Ttys              []string
	Hidden            []templateFact
}

// templateData converts a plan outside the timed loop, as a template-based
// builder would keep its input.
func templateData(p *plan) templateInput {
	d := templateInput{Workspace: p.workspace, Home: p.home, HomeRegex: p.homeRegex, ProxyPort: p.proxyPort, AnyNetwork: p.network, Tmpdir: p.tmpdir, Network: p.netHost, AllMach: p.allMach}
	for _, f := range p.ancestors {
		d.Ancestors = append(d.Ancestors, f.path)
	}
	for _, f := range p.guards {
		d.Guards = append(d.Guards, f.path)
	}
	for _, f := range p.ttys {
		d.Ttys = append(d.Ttys, f.path)
	}
	for _, f := range p.read {
		d.Read = append(d.Read, f.path)
	}
	for _, f := range p.write {
		d.Write = append(d.Write, f.path)
	}
	for _, f := range p.hidden {
		d.Hidden = append(d.Hidden, templateFact{Path: f.path, Ancestor: f.ancestor, File: f.kind == kindFile, Folded: f.folded})
	}
	return d
}

// TestProfileTemplateMatches keeps the template an honest reference: it
// renders exactly what the generated builder renders, for the golden cases
// and for every benchmark size.
func TestProfileTemplateMatches(t *testing.T) {
	var plans []*plan
	for _, c := range profileCases {
		plans = append(plans, newTestPlan(c))
	}
	for _, n := range benchSizes {
		plans = append(plans, benchPlan(n))
	}
	for i, p := range plans {
		var sb strings.Builder
		if err := profileTemplate.Execute(&sb, templateData(p)); err != nil {
			t.Fatal(err)
		}
		if got, want := sb.String(), darwinProfile(p); got != want {
			t.Errorf("plan %d: template renders\n%s\nbuilder renders\n%s", i, got, want)
		}
	}
}

// TestBenchPlansAllocateOnce runs the benchmarks' own plans through the
// allocation check, so the sizes measured are sizes known to stay at one
// allocation per build.
func TestBenchPlansAllocateOnce(t *testing.T) {
	for _, n := range benchSizes {
		p := benchPlan(n)
		if a := fewestAllocs(1, func() { _ = linuxArgs(p) }); a != 1 {
			t.Errorf("hidden=%d: linuxArgs made %v allocations, want 1", n, a)
		}
		if a := fewestAllocs(1, func() { _ = darwinProfile(p) }); a != 1 {
			t.Errorf("hidden=%d: darwinProfile made %v allocations, want 1", n, a)
		}
	}
}
