// execer is the program a pid runs before an exec: it waits for a line,
// then execs argv[1] with argv[2:], at the same pid.
package main

import (
	"bufio"
	"os"
	"syscall"
)

func main() {
	os.Stdout.WriteString("ready\n")
	bufio.NewReader(os.Stdin).ReadString('\n')
	if err := syscall.Exec(os.Args[1], os.Args[1:], os.Environ()); err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		os.Exit(1)
	}
}
