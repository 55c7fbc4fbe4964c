// persist calls (*os.File).Sync; every fsync's call site must name it and
// its line (main.go:19) <- main.main (main.go:26).
package main

import (
	"fmt"
	"os"
	"path/filepath"
)

//go:noinline
func persist(path string, data []byte) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	f.Write(data)
	return f.Sync()
}

func main() {
	dir := os.Args[1]
	for i := 0; i < 5; i++ {
		name := filepath.Join(dir, fmt.Sprintf("f%d", i))
		if err := persist(name, []byte("hello")); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}
