package archive

import (
	"io"
	"sync"
)

// A pipe with room for a few chunks in flight, so that whoever writes a
// restore and whoever sends it to the engine work at once: io.Pipe hands
// each write over only when the reader has taken it all, and a restore
// through it takes half again as long as the engine's own copy.

const (
	pipeChunk  = 256 << 10
	pipeChunks = 16 // 4 MiB in flight at most
)

// PipeReader is the reading end of Pipe.
type PipeReader struct {
	ch   <-chan []byte
	free chan<- []byte // chunks read, for the writer to fill again
	done chan struct{}
	once sync.Once
	err  *error
	mu   *sync.Mutex
	cur  []byte
	buf  []byte
}

// PipeWriter is the writing end of Pipe.
type PipeWriter struct {
	ch   chan<- []byte
	free <-chan []byte
	done <-chan struct{}
	err  *error
	mu   *sync.Mutex
	buf  []byte
	once sync.Once
}

// Pipe is io.Pipe with room for pipeChunks chunks of pipeChunk bytes.
func Pipe() (*PipeReader, *PipeWriter) {
	ch, free, done := make(chan []byte, pipeChunks), make(chan []byte, pipeChunks+2), make(chan struct{})
	var err error
	var mu sync.Mutex
	return &PipeReader{ch: ch, free: free, done: done, err: &err, mu: &mu},
		&PipeWriter{ch: ch, free: free, done: done, err: &err, mu: &mu}
}

// Write fills chunks and sends each when full.
func (w *PipeWriter) Write(p []byte) (int, error) {
	n := 0
	for len(p) > 0 {
		if w.buf == nil {
			select {
			case b := <-w.free:
				w.buf = b[:0]
			default:
				w.buf = make([]byte, 0, pipeChunk)
			}
		}
		k := copy(w.buf[len(w.buf):cap(w.buf)], p)
		w.buf, p, n = w.buf[:len(w.buf)+k], p[k:], n+k
		if len(w.buf) == cap(w.buf) {
			if err := w.send(); err != nil {
				return n, err
			}
		}
	}
	return n, nil
}

func (w *PipeWriter) send() error {
	b := w.buf
	w.buf = nil
	select {
	case w.ch <- b:
		return nil
	case <-w.done:
		return io.ErrClosedPipe
	}
}

// CloseWithError sends what is left and ends the stream: the reader gets
// err after the last byte, or io.EOF for nil.
func (w *PipeWriter) CloseWithError(err error) error {
	w.once.Do(func() {
		if len(w.buf) > 0 && err == nil {
			err = w.send()
		}
		w.mu.Lock()
		*w.err = err
		w.mu.Unlock()
		close(w.ch)
	})
	return nil
}

// Close ends the stream with io.EOF.
func (w *PipeWriter) Close() error { return w.CloseWithError(nil) }

// Read reads what was written, then the writer's error or io.EOF.
func (r *PipeReader) Read(p []byte) (int, error) {
	for len(r.cur) == 0 {
		if r.buf != nil {
			select {
			case r.free <- r.buf:
			default:
			}
			r.buf = nil
		}
		b, ok := <-r.ch
		if !ok {
			r.mu.Lock()
			defer r.mu.Unlock()
			if *r.err != nil {
				return 0, *r.err
			}
			return 0, io.EOF
		}
		r.buf, r.cur = b, b
	}
	n := copy(p, r.cur)
	r.cur = r.cur[n:]
	return n, nil
}

// Close tells the writer that nothing more is read: its writes fail.
func (r *PipeReader) Close() error {
	r.once.Do(func() { close(r.done) })
	return nil
}
