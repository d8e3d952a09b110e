//go:build !linux

package volumetar

import (
	"errors"
	"io"
)

// Write is Linux's alone (walk_linux.go): the program runs in a Linux
// helper, whatever the platform of the provider that copies it there.
func Write(io.Writer, string, string) error {
	return errors.New("the volume reader runs only on Linux, in a helper that mounts the volume")
}
