package archive

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// A sparse file of 2^63-1 bytes beside a 1-byte one: the sum would wrap
// in int64, and a bound checked as bytes+size > max let it stream without
// end. Its header alone is refused.
func TestBytesBoundCannotWrap(t *testing.T) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, h := range []*tar.Header{
		{Name: "./", Typeflag: tar.TypeDir, Mode: 0o755},
		{Name: "one", Typeflag: tar.TypeReg, Mode: 0o644, Size: 1},
		{Name: "huge", Typeflag: tar.TypeReg, Mode: 0o644, Size: math.MaxInt64},
	} {
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Size == 1 {
			_, _ = tw.Write([]byte("x"))
		}
	}
	// No content follows the huge file's header: a reader that gets past
	// the header fails another way.
	for _, c := range []struct {
		lim  Limits
		want string
	}{
		{Limits{MaxBytes: 1 << 20}, "more than 1048576 bytes"},
		{Limits{MaxBytes: math.MaxInt64}, "more than 9223372036854775807 bytes"},
		{Limits{}, "hold more than 2^63-1 bytes together"},
	} {
		_, _, err := Stream(context.Background(), io.Discard, bytes.NewReader(buf.Bytes()), "", c.lim)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("limits %+v: %v, want %q", c.lim, err, c.want)
		}
	}
}

func TestCheckEndTakesPaddingOnly(t *testing.T) {
	for _, c := range []struct {
		name  string
		after []byte
		ok    bool
	}{
		{"nothing", nil, true},
		{"a record's padding", make([]byte, 9216), true},
		{"a header after the end", tarOf(t, file{name: "evil", body: "x"}), false},
		{"one byte", []byte{0, 0, 1}, false},
		{"endless zeros", make([]byte, maxTrailer+1), false},
	} {
		err := CheckEnd(bytes.NewReader(c.after))
		var unsafe *UnsafeError
		if c.ok != (err == nil) || err != nil && !errors.As(err, &unsafe) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}

// Portable keeps nothing a tar program would read differently: numbers in
// their fields, names by records, no PAX records, names or extended
// attributes.
func TestPortableHeaders(t *testing.T) {
	h := tar.Header{Name: strings.Repeat("n", 300), Typeflag: tar.TypeReg, Size: 9 << 30, Uid: 3000000,
		Uname: "root", Gname: "root", PAXRecords: map[string]string{"SCHILY.xattr.security.capability": "x"},
		ModTime: when.Add(123456789)}
	Portable(&h)
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	if err := tw.WriteHeader(&h); err != nil {
		t.Fatal(err)
	}
	got, err := tar.NewReader(&buf).Next()
	if err != nil {
		t.Fatal(err)
	}
	if got.Format != tar.FormatGNU || got.Size != 9<<30 || got.Uid != 3000000 || got.Name != h.Name ||
		got.Uname != "" || len(got.PAXRecords) != 0 || !got.ModTime.Equal(when) {
		t.Errorf("read back %+v", got)
	}
}

// before orders paths as comparing them with each slash made the lowest
// byte does, without making those strings.
func TestBeforeIsTheWalkOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte{'/', '.', '-', 'a', 'b', 0x01, 0xff}
	word := func() string {
		b := make([]byte, 1+rng.IntN(6))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return string(b)
	}
	for range 20000 {
		a, b := word(), word()
		if a == Root || b == Root {
			continue // the archived directory comes first, whatever the other
		}
		want := strings.ReplaceAll(a, "/", "\x00") < strings.ReplaceAll(b, "/", "\x00")
		if got := before(a, b); got != want {
			t.Fatalf("before(%q, %q) = %v, want %v", a, b, got, want)
		}
	}
}
