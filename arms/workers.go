//go:build linux

package arms

import (
	"context"
	"os"
	"runtime"
	"sync"
)

// observe adds pid to tmpprobe's own processes (see Runner.observer).
func (r *Runner) observe(pid int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.observer == nil {
		r.observer = map[uint32]bool{uint32(os.Getpid()): true}
	}
	r.observer[uint32(pid)] = true
}

// observes says pid is one of tmpprobe's own processes.
func (r *Runner) observes(pid uint32) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return pid == uint32(os.Getpid()) || r.observer[pid]
}

// start launches the case's worker; a failure fails the case only.
func (r *Runner) start(ctx context.Context, p *Plan, cr *caseRun) {
	if cr.dead {
		return
	}
	cfg := Config{
		Lab: cr.Arm.Lab, Arm: cr.Arm.Name, PyFunc: cr.Arm.Python, GoSteps: cr.Arm.Go,
		Dir: cr.dir.path, DirFile: cr.dir.file, Payload: cr.Payload, Size: cr.Size,
		Chunk: p.Chunk, SpoolMax: p.SpoolMax, Cookie: r.Cookie,
	}
	var w *Worker
	var err error
	if srv := r.server(cr.Runtime); srv != nil {
		if w, err = srv.Start(ctx, cfg, p.BatchTimeout); w == nil && err != nil && ctx.Err() == nil {
			r.refuseServer(cr.Runtime) // no worker at all: the server's failure, not the case's
		}
	}
	if w == nil && ctx.Err() == nil {
		w, err = Start(ctx, cr.Runtime, cfg, p.BatchTimeout)
	}
	if w != nil {
		r.observe(w.Pid())
		// A worker is ready only once its interpreter runs: its layout,
		// if the uprobe at its start (or its fork server's) did not
		// install it, is read now, before any traced batch.
		if pi, ok := r.Tracer.(PythonInstaller); ok && cr.Runtime.Name == "python" && err == nil {
			pi.InstallPython(w.Pid())
		}
	}
	if err != nil && ctx.Err() != nil {
		return // interrupted: not the case's fault
	}
	if err != nil {
		stderr := ""
		if w != nil {
			stderr = w.Stderr()
		}
		cr.fail(r.describe(cr, w, err, p.BatchTimeout), stderr)
		return
	}
	cr.w = w
}

// startAll starts the workers of cases together: nothing is measured
// while workers start, and a host has more than one CPU. The next
// generation's Python fork servers start meanwhile (an interpreter and
// its imports, ~45 ms of a CPU here): startAll returns once they are
// ready, so they run beside this generation's starts, never beside its
// measured batches.
func (r *Runner) startAll(ctx context.Context, p *Plan, runs []*caseRun, cases []int) {
	pythons := map[string]Runtime{}
	for _, c := range cases {
		if rt := runs[c].Runtime; rt.Name == "python" {
			pythons[rt.Python] = rt
		}
	}
	for _, rt := range pythons {
		r.server(rt) // this generation's, before the next's
	}
	var ahead []*forkServer
	for _, rt := range pythons {
		if s := r.startAhead(rt); s != nil {
			ahead = append(ahead, s)
		}
	}
	var wg sync.WaitGroup
	slots := make(chan struct{}, 2*runtime.NumCPU())
	for _, c := range cases {
		wg.Add(1)
		go func() {
			defer wg.Done()
			slots <- struct{}{}
			defer func() { <-slots }()
			r.start(ctx, p, runs[c])
		}()
	}
	wg.Wait()
	for _, s := range ahead {
		s.wait(ctx) // one that failed is found when it is used
	}
}

// startAhead starts the next generation's fork server of rt, if it has
// none yet.
func (r *Runner) startAhead(rt Runtime) *forkServer {
	r.srvMu.Lock()
	defer r.srvMu.Unlock()
	if r.noServer[rt.Python] || r.ahead[rt.Python] != nil {
		return nil
	}
	s := r.newServer(rt)
	if s == nil {
		return nil
	}
	if r.ahead == nil {
		r.ahead = map[string]*forkServer{}
	}
	r.ahead[rt.Python] = s
	return s
}

// newServer starts a fork server of rt, one of tmpprobe's own processes
// (Runner.observer); nil if it cannot be started.
func (r *Runner) newServer(rt Runtime) *forkServer {
	s, err := startForkServer(rt, r.timeout)
	if err != nil {
		return nil
	}
	r.observe(s.cmd.Process.Pid)
	return s
}

// server is the current generation's fork server for the python runtime
// rt, started on first use; nil for the go runtime and for an
// interpreter that cannot run one.
func (r *Runner) server(rt Runtime) *forkServer {
	if rt.Name != "python" {
		return nil
	}
	r.srvMu.Lock()
	defer r.srvMu.Unlock()
	if r.noServer[rt.Python] {
		return nil
	}
	if s := r.servers[rt.Python]; s != nil {
		return s
	}
	s := r.ahead[rt.Python]
	delete(r.ahead, rt.Python)
	if s == nil {
		if s = r.newServer(rt); s == nil {
			r.refuseServerLocked(rt)
			return nil
		}
	}
	if r.servers == nil {
		r.servers = map[string]*forkServer{}
	}
	r.servers[rt.Python] = s
	return s
}

// refuseServer starts rt's workers by exec from now on: its interpreter
// could not run a fork server (before Python 3.9).
func (r *Runner) refuseServer(rt Runtime) {
	r.srvMu.Lock()
	defer r.srvMu.Unlock()
	r.refuseServerLocked(rt)
}

func (r *Runner) refuseServerLocked(rt Runtime) {
	if r.noServer == nil {
		r.noServer = map[string]bool{}
	}
	r.noServer[rt.Python] = true
	for _, m := range []map[string]*forkServer{r.servers, r.ahead} {
		if s := m[rt.Python]; s != nil {
			s.Kill()
			delete(m, rt.Python)
		}
	}
}

// closeServers ends the generation's fork servers, after their workers;
// kill ends every server at once, the next generation's too, with any
// worker left.
func (r *Runner) closeServers(kill bool) {
	r.srvMu.Lock()
	defer r.srvMu.Unlock()
	for py, s := range r.servers {
		if kill {
			s.Kill()
		} else {
			s.Close()
		}
		delete(r.servers, py)
	}
	for py, s := range r.ahead {
		if kill {
			s.Kill()
			delete(r.ahead, py)
		}
	}
}
