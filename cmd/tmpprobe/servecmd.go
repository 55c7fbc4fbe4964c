//go:build linux

package main

import (
	"io"
	"net"
	"os"
	"strconv"
	"time"

	"github.com/spf13/pflag"

	"github.com/tmpprobe/tmpprobe/follow"
	"github.com/tmpprobe/tmpprobe/serve"
	"github.com/tmpprobe/tmpprobe/session"
)

const serveUsage = `Usage: tmpprobe serve --pid PID[,...] | --tid TID[,...] | --cgroup PATH [flags]

Follows running processes, threads or a cgroup as 'tmpprobe trace' does,
until they end, --duration passes, or Ctrl-C or SIGTERM (which stop it
cleanly, exit 0), and serves what the probe counts of them over HTTP:

  /metrics                per syscall calls and errors (exact counters),
                          call time (histogram), off-CPU time by reason,
                          device requests, flushes, discards and journal
                          commits, for Prometheus (tmpprobe_*)
  /debug/pprof/syscalls   a pprof profile of the next ?seconds=N, as
                          --pprof writes (go tool pprof, Parca, Pyroscope)
  /why                    the last --last against the --baseline before
                          it, in the sentences of 'tmpprobe diff'

It listens on loopback unless --listen names another address. Every path
only reads: nothing over HTTP starts, stops or changes anything. See
docs/fleet.md for Prometheus, Pushgateway and Parca configurations.

Examples:
  sudo tmpprobe serve --cgroup system.slice/app.service
  sudo tmpprobe serve --pid 1234 --listen 127.0.0.1:9100
  sudo tmpprobe serve --cgroup app.slice --last 30s --baseline 5m
  go tool pprof -top 'http://127.0.0.1:9476/debug/pprof/syscalls?seconds=5'
  curl -s http://127.0.0.1:9476/why

Flags:
%s`

// defaultListen is serve's address: loopback, so that nothing is served
// beyond the machine unless --listen says so.
const defaultListen = "127.0.0.1:9476"

// Bounds of serve's flags: /why's windows are held as one-second samples
// (serve.SamplePeriod), so their sum is what the server keeps.
const (
	minLast        = 4 * time.Second
	maxWindows     = 15 * time.Minute
	maxProfileCap  = 10 * time.Minute
	maxLabelValues = 1000
)

type serveFlags struct {
	pids, tids  []string
	cgroup      string
	follow      bool
	duration    time.Duration
	listen      string
	last        time.Duration
	baseline    time.Duration
	maxProfile  time.Duration
	maxSyscalls int
	maxRegions  int
	attach      string
	quiet       bool
}

func cmdServe(in *session.Interrupts, args []string, stdout, stderr io.Writer) error {
	f := &serveFlags{}
	fs := pflag.NewFlagSet("serve", pflag.ContinueOnError)
	fs.StringSliceVar(&f.pids, "pid", nil, "serve these running processes (all their threads)")
	fs.StringSliceVar(&f.tids, "tid", nil, "serve just these threads")
	fs.StringVar(&f.cgroup, "cgroup", "", "serve every process of this cgroup v2, not of its child cgroups (path, absolute or under the cgroup2 mount)")
	fs.BoolVar(&f.follow, "follow", false, "also follow child processes of --pid (threads are always followed)")
	fs.DurationVar(&f.duration, "duration", 0, "stop after this long (default: when the target ends, or Ctrl-C)")
	fs.StringVar(&f.listen, "listen", defaultListen, "serve on this `HOST:PORT` (port 0: any free one, said on stderr)")
	fs.DurationVar(&f.last, "last", 10*time.Second, "/why: the last interval, compared with --baseline")
	fs.DurationVar(&f.baseline, "baseline", time.Minute, "/why: the window before --last it is compared with")
	fs.DurationVar(&f.maxProfile, "max-profile", time.Minute, "the longest profile /debug/pprof/syscalls?seconds= takes")
	fs.IntVar(&f.maxSyscalls, "max-syscalls", 100, "syscall label values served; later ones are summed as \"other\"")
	fs.IntVar(&f.maxRegions, "max-regions", 20, "region label values served; later ones are summed as \"other\"")
	fs.StringVar(&f.attach, "attach", "auto", "auto, fentry, kprobe or tracepoint (see 'tmpprobe check')")
	fs.BoolVarP(&f.quiet, "quiet", "q", false, "no 'serving …' line on stderr")
	if err := parseCommand(fs, args, serveUsage, stdout); err != nil {
		return err
	}
	s, err := f.session(fs.Args())
	if err != nil {
		return err
	}
	s.Stderr = stderr
	return session.RunServe(in, s)
}

// session checks serve's flags and makes its session.
func (f *serveFlags) session(rest []string) (session.Serve, error) {
	s := session.Serve{Listen: f.listen, Quiet: f.quiet, Config: serve.Config{Last: f.last, Baseline: f.baseline,
		MaxProfile: f.maxProfile, MaxSyscalls: f.maxSyscalls, MaxRegions: f.maxRegions}}
	spec := &follow.Spec{Follow: f.follow, Duration: f.duration, Cgroup: f.cgroup}
	var err error
	if spec.PIDs, err = ints("--pid", f.pids); err != nil {
		return s, err
	}
	if spec.TIDs, err = ints("--tid", f.tids); err != nil {
		return s, err
	}
	targets := 0
	for _, set := range []bool{len(spec.PIDs) > 0, len(spec.TIDs) > 0, spec.Cgroup != ""} {
		if set {
			targets++
		}
	}
	host, port, splitErr := net.SplitHostPort(f.listen)
	portN, portErr := strconv.Atoi(port)
	switch {
	case len(rest) > 0:
		return s, usagef("unexpected %q: serve follows running processes (--pid, --tid, --cgroup), not a command", rest[0])
	case targets != 1:
		return s, usagef("serve takes one kind of target: --pid, --tid or --cgroup")
	case splitErr != nil || portErr != nil || portN < 0 || portN > 65535:
		return s, usagef("--listen %q: want HOST:PORT, e.g. %s", f.listen, defaultListen)
	case host == "":
		return s, usagef("--listen %q: name the address (0.0.0.0 for every one): an empty host listens beyond loopback", f.listen)
	case f.duration < 0:
		return s, usagef("--duration must not be negative")
	case f.last < minLast || f.last%serve.SamplePeriod != 0:
		return s, usagef("--last %v: want whole seconds, at least %v", f.last, minLast)
	case f.baseline < f.last || f.baseline%serve.SamplePeriod != 0 || f.last+f.baseline > maxWindows:
		return s, usagef("--baseline %v: want whole seconds, at least --last (%v), the two at most %v", f.baseline, f.last, maxWindows)
	case f.maxProfile < time.Second || f.maxProfile > maxProfileCap:
		return s, usagef("--max-profile %v: want 1s..%v", f.maxProfile, maxProfileCap)
	case f.maxSyscalls < 1 || f.maxSyscalls > maxLabelValues || f.maxRegions < 1 || f.maxRegions > maxLabelValues:
		return s, usagef("--max-syscalls and --max-regions: want 1..%d", maxLabelValues)
	}
	for _, pid := range append(spec.PIDs, spec.TIDs...) {
		if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); err != nil {
			return s, usagef("no process or thread %d", pid)
		}
	}
	s.Spec = spec
	s.Backend, err = probeBackend(f.attach, "serve has nothing to serve without a probe")
	return s, err
}
