# tmpprobe — see README.md.
GO ?= go

.PHONY: all build generate check-generated test bench vmtest clean

all: build

build:
	$(GO) build -o tmpprobe ./cmd/tmpprobe

# Rebuilds the committed bpf2go output (needs clang and libbpf headers).
generate:
	cd probe && $(GO) generate .

# CI: the committed objects must be what the sources compile to.
check-generated: generate
	@git diff --exit-code -- probe/ || { echo "bpf2go output is stale: run 'make generate' and commit" >&2; exit 1; }

# The whole suite. Privileged tests load real BPF: run as root.
test:
	@test -z "$$(gofmt -l .)" || { echo "gofmt needed:"; gofmt -l .; exit 1; }
	$(GO) vet ./...
	$(GO) test -count=1 -p 1 -timeout 40m ./...

# Boots Debian's stock 6.1 and 6.12 kernels under QEMU (TCG), one after the
# other, with tmpprobe as /init's workload and checks the kprobe, fentry and
# tracepoint backends against each other on each (vmtest/; 3-4 min). The
# kernel packages are fetched once into /var/cache/tmpprobe-vmtest. Without
# qemu or a kernel it skips, or fails when CI is set.
vmtest:
	$(GO) test -tags vmtest -count=1 -v -timeout 20m ./vmtest/

bench:
	$(GO) test -run '^$$' -bench . -benchtime 1x -count 1 ./bench/

clean:
	rm -f tmpprobe
