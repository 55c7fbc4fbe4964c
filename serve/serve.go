//go:build linux

// Package serve serves what the probe counts of a target 'tmpprobe serve'
// follows, while it runs, where a fleet's tools already look: /metrics
// for Prometheus, /debug/pprof/syscalls for a continuous profiler that
// scrapes pprof (Parca, Pyroscope through Alloy), and /why, the last
// interval's WHY against the window before it. Nothing it serves starts,
// stops or changes anything: every path reads. Its memory is bounded
// whatever the scrape rate or the target's syscall rate: a scrape reads
// the probe's running totals once (the kernel's maps are bounded), the
// samples of /why are a ring of fixed length, and the requests in flight
// and the connections are capped; a scraper that goes away leaves no
// state behind.
package serve

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/tmpprobe/tmpprobe/follow"
	"github.com/tmpprobe/tmpprobe/results"
)

// Tracer is the probe as the server reads it: its running totals by
// phase, never cleared (each reader takes differences), and its drop
// counters.
type Tracer interface {
	Snapshot() (map[uint32][]results.ClassRecord, error)
	Drops() (map[string]uint64, error)
	// SnapshotStacks and StackTable are the user stacks as Snapshot has
	// the records: running totals by phase, and the frames they index
	// (nil when the probe takes none).
	SnapshotStacks() (map[uint32][]results.StackRecord, error)
	StackTable() *results.Stacks
}

// Config is what the server serves and its bounds.
type Config struct {
	Label string       // the target, as a trace names it (follow.Spec.Label)
	Meta  results.Meta // the host, for the runs /debug/pprof and /why build
	// Last and Baseline are /why's windows: the last interval, and the
	// window before it that it is compared with.
	Last, Baseline time.Duration
	// MaxProfile caps /debug/pprof/syscalls?seconds=.
	MaxProfile time.Duration
	// MaxSyscalls and MaxRegions cap the values of the syscall and region
	// labels; the values past them are summed into "other".
	MaxSyscalls, MaxRegions int
}

// SamplePeriod is how often the server keeps a sample of the totals for
// /why: each one is a round of the diff that says the WHY.
const SamplePeriod = time.Second

// Bounds of what the server holds at once, whatever comes at it.
const (
	maxScrapesInFlight  = 4  // /metrics; more wait for none: 503
	maxProfilesInFlight = 2  // /debug/pprof/syscalls, each held open ?seconds=
	maxConnections      = 32 // open connections; more wait in the kernel's backlog
	// DefaultProfile is ?seconds= when a request gives none, as Go's
	// /debug/pprof/profile has it.
	DefaultProfile = 30 * time.Second
)

// Server answers the HTTP paths. Its samples come from follow.Run's
// interval callback (Sample).
type Server struct {
	t        Tracer
	cfg      Config
	reg      *prometheus.Registry
	profiles chan struct{}
	window   ring
	why      cachedWhy
}

// New makes a server reading t.
func New(t Tracer, cfg Config) *Server {
	// Escaped once, as a session escapes its run (a cgroup's path is the
	// user's text): every run the server builds shares them.
	escaped := &results.Run{Meta: cfg.Meta, Args: []string{cfg.Label}}
	escaped.Escape()
	cfg.Meta, cfg.Label = escaped.Meta, escaped.Args[0]
	s := &Server{t: t, cfg: cfg, reg: prometheus.NewRegistry(), profiles: make(chan struct{}, maxProfilesInFlight)}
	s.reg.MustRegister(newCollector(t, cfg.Label, cfg.MaxSyscalls, cfg.MaxRegions))
	// tmpprobe's own memory and CPU, so a fleet sees what serving costs.
	s.reg.MustRegister(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	s.window = newRing(int((cfg.Last + cfg.Baseline) / SamplePeriod))
	return s
}

// Sample keeps the interval follow.Run hands out (SamplePeriod long, the
// last one cut short) for /why.
func (s *Server) Sample(iv follow.Interval) {
	s.window.add(sample{end: time.Now(), length: iv.Length, records: iv.Records})
}

// Handler is the server's paths. Every one reads; any other method than
// GET or HEAD is refused.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(s.reg, promhttp.HandlerOpts{
		MaxRequestsInFlight: maxScrapesInFlight,
		Timeout:             10 * time.Second,
		// A series whose reading failed is left out, the rest served,
		// and tmpprobe_scrape_errors_total counts it.
		ErrorHandling:     promhttp.ContinueOnError,
		EnableOpenMetrics: true,
	}))
	mux.HandleFunc("/debug/pprof/", s.pprofIndex)
	mux.HandleFunc("/debug/pprof/syscalls", s.profile)
	mux.HandleFunc("/why", s.whyText)
	mux.HandleFunc("/", s.index)
	return readOnly(mux)
}

// readOnly refuses every method that could be taken to change something.
func readOnly(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "tmpprobe serve only reads: GET or HEAD", http.StatusMethodNotAllowed)
			return
		}
		h.ServeHTTP(w, r)
	})
}

const indexText = `tmpprobe serve: what the probe counts of %s
  /metrics                     Prometheus and OpenMetrics
  /debug/pprof/syscalls?seconds=N  pprof of the next N seconds (at most %s)
  /why                         the last %s against the %s before it
`

func (s *Server) index(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/" {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	fprintf(w, indexText, s.cfg.Label, s.cfg.MaxProfile, s.cfg.Last, s.cfg.Baseline)
}

// Serve serves h on ln until ctx ends, then closes every connection: a
// profile being taken ends with it (its request's context is ctx's).
func Serve(ctx context.Context, ln net.Listener, h http.Handler, maxProfile time.Duration) error {
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		// A profile is written after its seconds pass.
		WriteTimeout:   maxProfile + 30*time.Second,
		IdleTimeout:    30 * time.Second,
		MaxHeaderBytes: 8 << 10,
		BaseContext:    func(net.Listener) context.Context { return ctx },
		ErrorLog:       discardLog,
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(limitListener(ln, maxConnections)) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := srv.Shutdown(shut); err != nil {
		srv.Close()
	}
	if err := <-done; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// limitListener holds at most n connections open: the next Accept waits
// for one to close, and the kernel's backlog holds the rest.
func limitListener(ln net.Listener, n int) net.Listener {
	return &limited{Listener: ln, slots: make(chan struct{}, n)}
}

type limited struct {
	net.Listener
	slots chan struct{}
}

func (l *limited) Accept() (net.Conn, error) {
	l.slots <- struct{}{}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.slots
		return nil, err
	}
	return &slotConn{Conn: c, release: func() { <-l.slots }}, nil
}

type slotConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *slotConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
