package planned

import (
	"context"
	"testing"
	"time"
)

func TestWritableBy(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		root     Root
		uid, gid int
		dac      bool
		want     bool
	}{
		{Root{UID: 0, GID: 0, Mode: 0o755}, 65534, 65534, false, false},
		{Root{UID: 0, GID: 0, Mode: 0o755}, 0, 0, false, true},
		{Root{UID: 65534, GID: 65534, Mode: 0o755}, 0, 0, false, false},
		{Root{UID: 65534, GID: 65534, Mode: 0o755}, 0, 0, true, true},
		{Root{UID: 65534, GID: 65534, Mode: 0o755}, 65534, 65534, false, true},
		{Root{UID: 1000, GID: 100, Mode: 0o775}, 1001, 100, false, true},
		{Root{UID: 1000, GID: 100, Mode: 0o755}, 1001, 100, false, false},
		{Root{UID: 0, GID: 0, Mode: 0o1777}, 65534, 65534, false, true},
		{Root{UID: 65534, GID: 65534, Mode: 0o555}, 65534, 65534, false, false},
	} {
		if got := c.root.WritableBy(c.uid, c.gid, c.dac); got != c.want {
			t.Errorf("%+v by %d:%d (dac %v): %v, want %v", c.root, c.uid, c.gid, c.dac, got, c.want)
		}
	}
}

func TestRecordAndLookUp(t *testing.T) {
	t.Parallel()
	RecordRoot("unix:///a", "work", Root{UID: 1, Mode: 0o755, From: "owner"})
	if r, ok := VolumeRoot("unix:///a", "work"); !ok || r.UID != 1 {
		t.Errorf("recorded root: %+v %v", r, ok)
	}
	if _, ok := VolumeRoot("unix:///b", "work"); ok {
		t.Error("a volume of another engine was found")
	}
}

// A start waits for the reads of its volumes, and only those; a read
// waits for a start under way.
func TestReadsAndStarts(t *testing.T) {
	bg := context.Background()
	endA, err := Reading(bg, "e", "a")
	if err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(bg, 50*time.Millisecond)
	defer cancel()
	endB, err := Starting(short, "e", []string{"b"})
	if err != nil {
		t.Fatalf("another volume's read held the start: %v", err)
	}
	if _, err := Starting(short, "e", []string{"a", "b"}); err == nil {
		t.Fatal("a start did not wait for the read of its volume")
	}
	short2, cancel2 := context.WithTimeout(bg, 50*time.Millisecond)
	defer cancel2()
	if _, err := Reading(short2, "e", "b"); err == nil {
		t.Fatal("a read did not wait for the start under way")
	}
	endB()
	endA()
	endA() // once
	endC, err := Starting(bg, "e", []string{"a", "b"})
	if err != nil {
		t.Fatal(err)
	}
	endC()
	endR, err := Reading(bg, "e", "b")
	if err != nil {
		t.Fatal(err)
	}
	endR()
}
