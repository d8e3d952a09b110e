package engine

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestBoundedBufferKeepsTheHeadAndTheTail(t *testing.T) {
	b := &boundedBuffer{max: 10}
	for _, chunk := range []string{"0123", "456789ab", strings.Repeat("x", 3000), "END"} {
		if n, err := b.Write([]byte(chunk)); n != len(chunk) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", chunk, n, err)
		}
	}
	if b.String() != "0123456789" || !b.cut() {
		t.Errorf("head %q, cut %t", b.String(), b.cut())
	}
	if tail := b.tailString(); len(tail) != tailBytes || !strings.HasSuffix(tail, "xEND") {
		t.Errorf("tail of %d bytes ending %q", len(tail), tail[len(tail)-4:])
	}
	whole := &boundedBuffer{}
	_, _ = whole.Write([]byte("all of it"))
	if whole.String() != "all of it" || whole.cut() {
		t.Errorf("unbounded: %q, cut %t", whole.String(), whole.cut())
	}
	exact := &boundedBuffer{max: 4}
	_, _ = exact.Write([]byte("four"))
	if exact.cut() {
		t.Error("output of exactly max bytes reads as cut")
	}
}

// Each way an interrupted command's processes were stopped, or not, reads
// as what happened, and where they may still run it says which.
func TestExecInterruptedErrorSaysWhatMayStillRun(t *testing.T) {
	const id = "0123456789abcdef0123"
	cause := context.DeadlineExceeded
	cases := map[string]struct {
		stop ExecStop
		want []string
	}{
		"killed inside": {ExecStop{}, []string{"its processes were killed, and the engine lists none of them left"}},
		"survivors, restarted": {ExecStop{Restarted: true, Survivors: 2},
			[]string{"2 of its processes outlived a kill inside the sandbox, so the sandbox was restarted",
				"its main process was restarted too"}},
		"gVisor, restarted": {ExecStop{Restarted: true, Unchecked: ErrCannotList.Error()},
			[]string{"cannot list the processes of a gVisor sandbox", "so the sandbox was restarted"}},
		"survivors, restart failed": {ExecStop{Survivors: 1, Err: errors.New("engine gone"), LeftPIDs: []int{4242}},
			[]string{"1 of its processes outlived", "restarting the sandbox failed (engine gone)",
				"they may still run (host process IDs [4242])", "docker restart 0123456789ab"}},
		"unchecked, restart failed": {ExecStop{Unchecked: ErrCannotList.Error(), Err: errors.New("engine gone")},
			[]string{"any of the command's processes may still run", "docker restart 0123456789ab"}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			msg := (&ExecInterruptedError{Container: id, Cause: cause, Stop: c.stop}).Error()
			for _, want := range c.want {
				if !strings.Contains(msg, want) {
					t.Errorf("%q\ndoes not say %q", msg, want)
				}
			}
		})
	}
}

func TestExecOutputGivesLinesWithinItsBound(t *testing.T) {
	var got []string
	out := NewExecOutput(ExecSpec{MaxOutput: 16, Lines: func(stream, line string) { got = append(got, stream+":"+line) }})
	_, _ = out.Stdout().Write([]byte("one\ntw"))
	_, _ = out.Stderr().Write([]byte("err\n"))
	_, _ = out.Stdout().Write([]byte("o\nthree and more past the bound\n"))
	res := out.Result("", 0)
	want := []string{"stdout:one", "stderr:err", "stdout:two", "stdout:three an"}
	if !slices.Equal(got, want) {
		t.Errorf("lines %q, want %q", got, want)
	}
	if !res.StdoutCut {
		t.Error("stdout past the bound is not cut")
	}
}
