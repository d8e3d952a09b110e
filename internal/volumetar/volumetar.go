// Package volumetar is the program that reads a volume inside a helper:
// the provider's own executable, copied into the helper, run as
//
//	terraform-provider-sandbox Command DIR NAME [gzip]
//
// which writes DIR's tree to its standard output as a tar whose entries
// lie under NAME, as an engine's archive endpoint would: each directory's
// entries sorted by name, with numeric owners, modes, times, symbolic
// links as links and hard links as links. A sandbox may be writing to the
// volume while it is read (a cluster, or an engine that cannot pause it),
// so the walk trusts no path: it opens each directory relative to its
// parent's descriptor with O_NOFOLLOW, never follows a symbolic link
// anywhere, and reads a file only through a descriptor it has checked is
// a regular file, so that a directory swapped for a link to / or for a
// FIFO is refused, never followed or waited on. What it writes is read by
// package archive, as hostile as the volume it came from. With gzip, the
// tar is gzip-compressed at gzip's fastest level, for a reader at the
// other end of a network (a cluster's API server).
//
//	terraform-provider-sandbox Command unpack DIR NAME [gzip]
//
// fills DIR from a tar on its standard input instead (Unpack), and
//
//	terraform-provider-sandbox Command empty DIR
//
// says whether DIR is empty, which Unpack asks of it (Empty).
//
//	terraform-provider-sandbox Command wait [SECONDS]
//
// blocks until it is stopped, or for SECONDS (WaitAtMost without them): what a Docker helper runs
// while the provider reads through it. A helper left by a provider killed
// outright stops on its own.
package volumetar

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/klauspost/compress/gzip"
)

// Command is the argument that runs the program instead of the provider.
const Command = "__tfsandbox_volume_tar"

// Gzip is the last argument that compresses what the program writes.
const Gzip = "gzip"

// outBuffer is how much the program writes to its standard output at
// once: the engine carries each write through its exec's pipes.
const outBuffer = 1 << 20

// WaitAtMost bounds a wait given no bound.
const WaitAtMost = time.Hour

// Exit statuses: ExitChanged says that the volume changed while it was
// read (an entry went, or became another kind of file); ExitNotEmpty that
// a directory Empty asked about holds something.
const (
	exitFailed   = 1
	exitUsage    = 2
	ExitChanged  = 3
	ExitNotEmpty = 4
)

// Main runs the program on its arguments (after Command) and returns its
// exit status.
func Main(args []string) int {
	if len(args) >= 1 && args[0] == Unpack {
		return unpackMain(args[1:])
	}
	if len(args) == 2 && args[0] == Empty {
		return emptyMain(args[1])
	}
	if len(args) >= 1 && args[0] == "wait" {
		bound := WaitAtMost
		if len(args) == 2 {
			if secs, err := strconv.Atoi(args[1]); err == nil && secs > 0 {
				bound = time.Duration(secs) * time.Second
			}
		}
		stop := make(chan os.Signal, 1)
		signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
		select {
		case <-stop:
		case <-time.After(bound):
		}
		return 0
	}
	if !dirAndName(args) {
		fmt.Fprintf(os.Stderr, "usage: %s DIR NAME [%s] | %s DIR NAME [%s] | %s DIR | wait\n", Command, Gzip, Unpack, Gzip,
			Empty)
		return exitUsage
	}
	out := bufio.NewWriterSize(os.Stdout, outBuffer)
	var w io.Writer = out
	var zw *gzip.Writer
	if len(args) == 3 {
		zw, _ = gzip.NewWriterLevel(out, gzip.BestSpeed) // a valid level: no error
		w = zw
	}
	err := Write(w, args[0], args[1])
	if err == nil && zw != nil {
		err = zw.Close()
	}
	if err == nil {
		err = out.Flush()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		if errors.As(err, new(*ChangedError)) {
			return ExitChanged
		}
		return exitFailed
	}
	return 0
}

// dirAndName reports whether args are DIR NAME [gzip], the arguments of
// a read and of Unpack.
func dirAndName(args []string) bool {
	return len(args) == 2 || len(args) == 3 && args[2] == Gzip
}

// ChangedError is a volume that changed while it was read.
type ChangedError struct {
	Entry, How string
}

func (e *ChangedError) Error() string {
	return fmt.Sprintf("the volume changed while it was read: %s %s", strconv.Quote(e.Entry), e.How)
}
