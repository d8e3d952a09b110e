package engine

import (
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
