//go:build linux

package main

import (
	"bufio"
	"os"
	"runtime"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/tmpprobe/tmpprobe/arms"
	"github.com/tmpprobe/tmpprobe/results"
)

func hostFacts(rts []arms.Runtime) results.Meta {
	m := results.Meta{CPUs: runtime.NumCPU(), CPU: cpuModel()}
	var u unix.Utsname
	if unix.Uname(&u) == nil {
		m.KernelRelease = unix.ByteSliceToString(u.Release[:])
		m.Machine = unix.ByteSliceToString(u.Machine[:])
	}
	for _, rt := range rts {
		if rt.Name == "python" {
			m.Python = rt.Version
		}
	}
	return m
}

func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
