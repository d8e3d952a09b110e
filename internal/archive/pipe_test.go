package archive

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// What is written comes out whole and in order, then the writer's error;
// a reader that stops fails the writes after it.
func TestPipe(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789abcdef"), 3*pipeChunk/16+7)
	for _, end := range []error{nil, errors.New("the snapshot changed")} {
		r, w := Pipe()
		go func() {
			for rest := data; len(rest) > 0; rest = rest[min(1000, len(rest)):] {
				_, _ = w.Write(rest[:min(1000, len(rest))])
			}
			_ = w.CloseWithError(end)
		}()
		got, err := io.ReadAll(r)
		if (end == nil) != (err == nil) || !bytes.Equal(got, data[:len(got)]) || end == nil && len(got) != len(data) {
			t.Errorf("end %v: read %d of %d bytes, error %v", end, len(got), len(data), err)
		}
	}
	r, w := Pipe()
	_ = r.Close()
	var err error
	for i := 0; i <= pipeChunks+1 && err == nil; i++ {
		_, err = w.Write(make([]byte, pipeChunk))
	}
	if !errors.Is(err, io.ErrClosedPipe) {
		t.Errorf("writing to a closed reader: %v", err)
	}
}
