package engine

// File is a file written into a container.
type File struct {
	Path    string // absolute
	Content []byte
	Mode    int64
}
