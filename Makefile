# tmpprobe — see README.md.
# go from PATH, else where Go's own tarball installs it: sudo's secure_path
# has no Go, and a make that tmpprobe trace runs as you under sudo still
# finds it.
GO ?= $(or $(shell command -v go 2>/dev/null),/usr/local/go/bin/go)
# sudo make install: to /usr/local/bin, which sudo's secure_path has.
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin

.PHONY: all build install uninstall generate check-generated test bench vmtest vmtest-all clean

all: build

build:
	$(GO) build -o tmpprobe ./cmd/tmpprobe

# The committed BPF objects (probe/tmpprobe_{x86,arm64}_bpfel.o) are what this clang,
# Debian 12's, makes of bpf/. Another clang compiles the same source to other
# bytes (clang 15 does), and then check-generated could not tell a stale
# object from another compiler: generate refuses another major version, and
# check-generated names both versions. Moving to a new clang means changing
# this line and committing the objects it makes.
BPF_CLANG_VERSION := 14.0.6
BPF_CLANG_MAJOR := $(firstword $(subst ., ,$(BPF_CLANG_VERSION)))
# clang-14 when it is on PATH (Debian's clang-14 package installs no plain
# clang), else clang; CLANG=... names another. bpf2go then strips with the
# llvm-strip of the same suffix.
CLANG ?= $(or $(shell command -v clang-$(BPF_CLANG_MAJOR) 2>/dev/null),clang)

# Rebuilds the committed bpf2go output (needs clang, llvm and libbpf headers).
generate:
	@found="$$($(CLANG) -dumpversion 2>/dev/null)"; \
	if [ -z "$$found" ]; then \
		echo "make generate: no $(CLANG): the BPF objects are built with clang $(BPF_CLANG_VERSION) (Debian 12: apt-get install clang llvm libbpf-dev)" >&2; exit 1; \
	elif [ "$${found%%.*}" != "$(BPF_CLANG_MAJOR)" ]; then \
		echo "make generate: $(CLANG) is clang $$found, not $(BPF_CLANG_MAJOR) (the committed BPF objects are clang $(BPF_CLANG_VERSION)'s; another major version compiles them differently): install clang-$(BPF_CLANG_MAJOR) and run 'make generate CLANG=clang-$(BPF_CLANG_MAJOR)'" >&2; exit 1; \
	fi
	cd probe && BPF2GO_CC=$(CLANG) $(GO) generate .

# CI: the committed objects must be what the sources compile to.
check-generated: generate
	@git diff --quiet -- probe/ || { \
		git diff --stat -- probe/ >&2; \
		found="$$($(CLANG) -dumpversion)"; \
		if [ "$$found" = "$(BPF_CLANG_VERSION)" ]; then \
			echo "bpf2go output is stale (clang $$found, as expected): run 'make generate' and commit" >&2; \
		else \
			echo "bpf2go output differs: compiled here by clang $$found, the committed objects by clang $(BPF_CLANG_VERSION); the difference may be the compiler's: compare with clang $(BPF_CLANG_VERSION) before committing" >&2; \
		fi; exit 1; }

# Tests load real BPF, so their binaries run as root; the build does not
# need to. Run as a user, go test builds with that user's Go and runs each
# test binary through sudo, keeping the user's PATH (sudo's secure_path has
# no Go, and tests run go tool pprof and python3) plus the sbin directories
# a user's PATH lacks and root's has (mkfs.ext4, losetup). As root, no sudo.
ASROOT := $(if $(filter 0,$(shell id -u)),,-exec "sudo env PATH=$(PATH):/usr/local/sbin:/usr/sbin:/sbin")

# The whole suite, a line per test as it ends (gotestsum, a tool of this
# module: go test alone prints nothing until a package is done, minutes
# here); its last line is its summary, DONE n tests, or the failures.
test:
	@test -z "$$(gofmt -l .)" || { echo "gofmt needed:"; gofmt -l .; exit 1; }
	$(GO) vet ./...
	$(GO) tool gotestsum --format testname -- $(ASROOT) -count=1 -p 1 -timeout 80m ./...

# Boots Debian's stock kernels under QEMU (TCG), one after the other: 5.10,
# 6.1 and 6.12 on x86-64 and 6.12 on arm64, with tmpprobe as /init's
# workload, and checks the kprobe, fentry and tracepoint backends against
# each other and against strace on each, the block I/O and journal on an
# ext4 disk, and the BPF histogram slots against results' (vmtest/; ~14
# min). The packages are fetched once into /var/cache/tmpprobe-vmtest.
# Without qemu or a kernel it skips, or fails when CI is set.
vmtest:
	$(GO) test $(ASROOT) -tags vmtest -count=1 -v -timeout 60m ./vmtest/

# Every kernel of vmtest.StockKernels, arm64's 6.1 too.
vmtest-all:
	TMPPROBE_VMTEST_ALL=1 $(GO) test $(ASROOT) -tags vmtest -count=1 -v -timeout 90m ./vmtest/

bench:
	$(GO) test $(ASROOT) -run '^$$' -bench . -benchtime 1x -count 1 -timeout 150m ./bench/

# Installs the tmpprobe that make built as you; it builds nothing, so root
# needs no Go and writes nothing in your clone. The path is quoted for the
# shell: a DESTDIR with a glob or a space in it names one path, and
# uninstall removes that file, never every match of a pattern.
shquote = '$(subst ','\'',$(1))'
INSTALLED := $(call shquote,$(DESTDIR)$(BINDIR)/tmpprobe)

install:
	@test -x tmpprobe || { echo "make install: no ./tmpprobe: run make first (as you), then sudo make install" >&2; exit 1; }
	install -D -m 0755 tmpprobe $(INSTALLED)

uninstall:
	rm -f -- $(INSTALLED)

clean:
	rm -f tmpprobe
