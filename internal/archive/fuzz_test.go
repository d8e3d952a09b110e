package archive

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/archive/archivetest"
)

// FuzzRoundTrip feeds any bytes to the provider's reader as a hostile
// archive. Whatever it keeps must be a fixed point: its kept form taken
// again is the same bytes, restores (strictly) with the same digest, and
// the stream the restore writes for an unpacker lists the same entries;
// and a plan's check (CheckEntries) refuses exactly what a restore does.
// Its corpus lives in testdata/fuzz/FuzzRoundTrip; `make test` runs the
// corpus and fuzzes briefly.
func FuzzRoundTrip(f *testing.F) {
	for _, seed := range fuzzSeeds(f) {
		f.Add(seed)
	}
	lim := Limits{MaxBytes: 1 << 20, MaxEntries: 200}
	f.Fuzz(func(t *testing.T, src []byte) {
		ctx := context.Background()
		// A plan's check, which seeks past content, refuses what the
		// restore that reads it all refuses, and nothing else.
		_, restoreErr := Restore(ctx, io.Discard, bytes.NewReader(src), "seed", lim)
		if c, checkErr := CheckEntries(ctx, bytes.NewReader(src), "seed", lim); (checkErr == nil) != (restoreErr == nil) {
			t.Fatalf("the plan's check: %+v, %v; the restore: %v", c, checkErr, restoreErr)
		}
		var kept bytes.Buffer
		s, _, err := Snapshot(ctx, &kept, bytes.NewReader(src), "", lim, &archivetest.Sparse{})
		if err != nil {
			return // refused: nothing is written anywhere
		}
		var again bytes.Buffer
		s2, _, err := Snapshot(ctx, &again, bytes.NewReader(kept.Bytes()), "", lim, &archivetest.Sparse{})
		if err != nil || s2 != s || !bytes.Equal(again.Bytes(), kept.Bytes()) {
			t.Fatalf("the kept form taken again: %+v, %v; first %+v", s2, err, s)
		}
		var stream bytes.Buffer
		r, err := Restore(ctx, &stream, bytes.NewReader(kept.Bytes()), "", lim)
		if err != nil || r.SHA256 != s.SHA256 || r.Entries != s.Entries {
			t.Fatalf("the kept form restored: %+v, %v; taken %+v", r, err, s)
		}
		if c, err := CheckEntries(ctx, bytes.NewReader(kept.Bytes()), "", lim); err != nil || c.Entries != s.Entries ||
			c.Size != int64(kept.Len()) {
			t.Fatalf("the kept form checked at plan: %+v, %v; taken %+v", c, err, s)
		}
		if a, b := archivetest.GoListing(t, bytes.NewReader(kept.Bytes())), archivetest.GoListing(t, bytes.NewReader(stream.Bytes())); a != b {
			t.Fatalf("the stream lists\n%s\nthe kept form\n%s", b, a)
		}
		if err := CheckEnd(bytes.NewReader(stream.Bytes()[streamEnd(t, stream.Bytes()):])); err != nil {
			t.Fatalf("the stream's end: %v", err)
		}
	})
}

// streamEnd is where an archive's end-of-archive blocks end.
func streamEnd(t *testing.T, b []byte) int {
	t.Helper()
	r := bytes.NewReader(b)
	tr := tar.NewReader(r)
	for {
		if _, err := tr.Next(); err != nil {
			if !errors.Is(err, io.EOF) {
				t.Fatalf("the stream cannot be read: %v", err)
			}
			return len(b) - r.Len()
		}
	}
}

// fuzzSeeds are small archives of the shapes the differential test holds
// to the real unpackers.
func fuzzSeeds(f *testing.F) [][]byte {
	var seeds [][]byte
	for _, c := range archivetest.Corpus() {
		if c.Name == "8 GiB file holding a tar of a setuid program" || c.Name == "bytes past int64" ||
			strings.HasPrefix(c.Name, "GNU tar") || c.Name == "busybox tar" {
			continue // large, or made by a program: testdata holds small ones
		}
		var b bytes.Buffer
		c.Write(f, &b)
		seeds = append(seeds, b.Bytes())
	}
	return seeds
}
