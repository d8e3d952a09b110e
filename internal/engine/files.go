package engine

import (
	"fmt"
)

// File is a file written into a container.
type File struct {
	Path    string // absolute
	Content []byte
	Mode    int64
}

// FileTooLargeError is a file larger than a read's bound.
type FileTooLargeError struct {
	Path      string
	Size, Max int64
}

func (e *FileTooLargeError) Error() string {
	return fmt.Sprintf("%s is %d bytes, more than the %d bytes allowed", e.Path, e.Size, e.Max)
}

// NotRegularFileError is a path that is not a regular file (a directory, a
// symbolic link, a device).
type NotRegularFileError struct {
	Path, Kind, LinkTarget string
}

func (e *NotRegularFileError) Error() string {
	if e.LinkTarget != "" {
		return fmt.Sprintf("%s is a symbolic link to %s", e.Path, e.LinkTarget)
	}
	return fmt.Sprintf("%s is a %s, not a regular file", e.Path, e.Kind)
}
