//go:build linux

package probe

import (
	"errors"
	"fmt"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/features"
	"github.com/cilium/ebpf/link"
)

// cookieStage marks a stage in a kprobe.multi attach cookie; a syscall's
// cookie is its nr.
const cookieStage = uint64(tmpprobeMultiCookieCOOKIE_STAGE)

// kprobeMulti is the kprobe backend on a kernel with kprobe.multi links
// (CONFIG_FPROBE): one entry and one return program, each attached to
// every function hook in a single link, told apart by cookie.
type kprobeMulti struct {
	entry, exit *ebpf.Program
	hooks       []funcHook
	opts        link.KprobeMultiOptions
}

// multiOptions are the symbols of hooks with their cookies.
func multiOptions(hooks []funcHook) (link.KprobeMultiOptions, error) {
	var opts link.KprobeMultiOptions
	for _, h := range hooks {
		cookie := cookieStage | uint64(h.stage)
		if h.syscall != "" {
			nr, ok := syscallNr(h.syscall)
			if !ok {
				return opts, fmt.Errorf("syscall %s has no %s number", h.syscall, archName)
			}
			cookie = uint64(nr)
		}
		opts.Symbols = append(opts.Symbols, h.target)
		opts.Cookies = append(opts.Cookies, cookie)
	}
	return opts, nil
}

// attach makes the entry or the return link over every hook.
func (m *kprobeMulti) attach(entry bool) (link.Link, error) {
	if entry {
		return attachMulti("kprobe.multi", m.entry, m.opts)
	}
	return attachMulti("kretprobe.multi", m.exit, m.opts)
}

// attachMulti attaches prog as a kprobe.multi or kretprobe.multi link.
func attachMulti(kind string, prog *ebpf.Program, opts link.KprobeMultiOptions) (link.Link, error) {
	attach := link.KprobeMulti
	if kind == "kretprobe.multi" {
		attach = link.KretprobeMulti
	}
	l, err := attach(prog, opts)
	if errors.Is(err, ebpf.ErrNotSupported) {
		// On a kernel of v5.18 or later the link type exists, but
		// without CONFIG_FPROBE its attach is a stub returning
		// EOPNOTSUPP; cilium/ebpf's probe then says "requires v5.18".
		return nil, notSupported("no kprobe.multi links (kernel built without CONFIG_FPROBE)")
	}
	return l, err
}

// loadKprobeMulti loads the kprobe.multi pair for hooks and proves both
// links by attaching and closing them, so that Attach never has to change
// plans halfway. On error nothing of it stays loaded.
func (p *Probe) loadKprobeMulti(hooks []funcHook) (err error) {
	loaded := len(p.colls)
	defer func() {
		if err != nil {
			for _, c := range p.colls[loaded:] {
				c.Close()
			}
			p.colls = p.colls[:loaded]
		}
	}()
	// kprobe.multi (v5.18) came after the attach cookie helper (v5.15)
	// its programs call: without the helper, say so rather than show the
	// verifier's "unknown func".
	if features.HaveProgramHelper(ebpf.Kprobe, asm.FnGetAttachCookie) != nil {
		return notSupported("no kprobe.multi links (v5.18): no bpf_get_attach_cookie (v5.15) either")
	}
	m := &kprobeMulti{hooks: hooks}
	if m.opts, err = multiOptions(hooks); err != nil {
		return err
	}
	if m.entry, err = p.loadOne(tmpprobeProgKprobeMultiEntry, ""); err != nil {
		return err
	}
	if m.exit, err = p.loadOne(tmpprobeProgKretprobeMultiExit, ""); err != nil {
		return err
	}
	// The return link first and closed last, as Attach and Detach do:
	// an entry never runs without its return in place.
	exit, err := m.attach(false)
	if err != nil {
		return err
	}
	defer exit.Close()
	entry, err := m.attach(true)
	if err != nil {
		return err
	}
	entry.Close()
	p.multi = m
	return nil
}

// loadFuncBackend loads the function backend's programs for hooks: the
// kprobe backend takes kprobe.multi where the kernel has it and single
// kprobes otherwise (why is kept for Describe); fentry has a program pair
// per function.
func (p *Probe) loadFuncBackend(hooks []funcHook) error {
	if p.Backend == BackendKprobe {
		err := p.loadKprobeMulti(hooks)
		if err == nil {
			return nil
		}
		p.noMulti = Refusal(err)
	}
	return p.loadFuncs(hooks)
}

// hooked are the function hooks the probe has programs for.
func (p *Probe) hooked() []funcHook {
	if p.multi != nil {
		return p.multi.hooks
	}
	var out []funcHook
	for _, f := range p.funcs {
		out = append(out, f.hook)
	}
	return out
}
