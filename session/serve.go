//go:build linux

package session

import (
	"context"
	"fmt"
	"io"
	"net"

	"github.com/tmpprobe/tmpprobe/follow"
	"github.com/tmpprobe/tmpprobe/preflight"
	"github.com/tmpprobe/tmpprobe/probe"
	"github.com/tmpprobe/tmpprobe/serve"
)

// Serve is 'tmpprobe serve': a target followed as trace follows it
// (processes, threads or a cgroup), its numbers served over HTTP.
type Serve struct {
	Spec    *follow.Spec
	Backend probe.Backend
	Listen  string // host:port
	Config  serve.Config
	Quiet   bool // no "serving …" line
	Stderr  io.Writer
}

// RunServe follows the target and serves it until the target ends, the
// duration passes or a signal comes: stopping is how a server ends, so a
// signal ends it with no error, every connection closed.
func RunServe(in *Interrupts, s Serve) error {
	opts := probe.Options{Attach: s.Backend, TracePhase: follow.Phase, AnyDevice: true, Stacks: traceStacks(false)}
	if s.Spec.Cgroup != "" {
		id, err := follow.CgroupID(s.Spec.Cgroup)
		if err != nil {
			return &UsageError{err.Error()}
		}
		opts.TargetCgroup = id
	}
	if in.ended() {
		return in.before()
	}
	meta := preflight.Host()
	p, err := openProbe(opts, nil, &meta, false)
	if err != nil {
		return err
	}
	defer p.Close()
	ln, err := net.Listen("tcp", s.Listen)
	if err != nil {
		return usagef("--listen %s: %s", s.Listen, err)
	}
	cfg := s.Config
	cfg.Label, cfg.Meta = s.Spec.Label(), meta
	srv := serve.New(p, cfg)
	// The server stops with the following: the target's end or the
	// duration's ends it as a signal does.
	ctx, stop := context.WithCancel(in.Context())
	defer stop()
	served := make(chan error, 1)
	go func() { served <- serve.Serve(ctx, ln, srv.Handler(), cfg.MaxProfile) }()
	spec := *s.Spec
	spec.Interval = serve.SamplePeriod
	ready := func() {
		if !s.Quiet {
			fmt.Fprintf(s.Stderr, "tmpprobe: serving %s on http://%s (/metrics, /debug/pprof/, /why; markers: %s=%d)\n",
				cfg.Label, ln.Addr(), follow.CookieEnv, p.Cookie)
		}
	}
	_, err = follow.Run(in.Context(), p, p.Cookie, &spec, ready, srv.Sample)
	stop()
	if serr := <-served; err == nil {
		err = serr
	}
	return err
}
