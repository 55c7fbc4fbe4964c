package probe

//go:generate go tool bpf2go -tags linux -target amd64,arm64 -type class_key -type class_stats -type hist_geometry -type off_state -type off_waker -type off_label -type pseudo_class -type phase_flag -type stage -type multi_cookie -type drop_reason -type syscall_nr -type neighbour_key -type neighbour_stats -type neighbour_kind -type cost_cut -type thread_state -type stack_bounds -type tstate_match -type py_layout -type py_template -type stack_flag -type stack_key -type stack_count_key -type stack_count -type code_rec -type exec_rec -type stack_stat tmpprobe ../bpf/tmpprobe.bpf.c -- -I../bpf -I../bpf/headers -Wall -Werror -O2 -g
//go:generate sh -c "sh ../bpf/sysnames.sh amd64 $BPF2GO_CC | gofmt > sysnames_amd64.go"
//go:generate sh -c "sh ../bpf/sysnames.sh arm64 $BPF2GO_CC | gofmt > sysnames_arm64.go"
