package probe

//go:generate go tool bpf2go -tags linux -target amd64 -type class_key -type class_stats tmpprobe ../bpf/tmpprobe.bpf.c -- -I../bpf -I../bpf/headers -Wall -Werror -O2 -g
//go:generate sh -c "awk -f ../bpf/sysnames.awk /usr/include/x86_64-linux-gnu/asm/unistd_64.h | gofmt > sysnames_amd64.go"
