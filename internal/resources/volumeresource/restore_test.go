package volumeresource_test

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// entry is one entry of a hand-made archive.
type entry struct {
	name, link string
	typ        byte
	body       string
}

// handMade writes an archive of the entries to a file, and returns the
// file and its digest: what a user who edited a snapshot, or an attacker
// who wrote one, would hand sandbox_volume.snapshot.
func handMade(t *testing.T, trailer string, entries ...entry) (string, string) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Linkname: e.link, Typeflag: e.typ, Mode: 0o644, Size: int64(len(e.body)),
			Uid: 65534, Gid: 65534}
		if e.typ == 0 {
			h.Typeflag = tar.TypeReg
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		_, _ = tw.Write([]byte(e.body))
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	buf.WriteString(trailer)
	file := filepath.Join(t.TempDir(), "snapshot.tar")
	if err := os.WriteFile(file, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(buf.Bytes())
	return file, hex.EncodeToString(sum[:])
}

func restoreConfig(name, file, sum string) string {
	return config(name, fmt.Sprintf(`  snapshot = { file = %q, sha256 = %q }`, file, sum))
}

// restoreLaterConfig names the file through terraform_data, so that the
// plan does not know it and the apply is the first to read it.
func restoreLaterConfig(name, file, sum string) string {
	return fmt.Sprintf(`
resource "terraform_data" "file" {
  input = %[2]q
}
`, name, file) + config(name, fmt.Sprintf(`  snapshot = { file = terraform_data.file.output, sha256 = %q }`, sum))
}

// noVolume checks that the refused restore created no volume.
func noVolume(t *testing.T, name string) func() {
	return func() {
		if _, err := acctest.Engine(t).InspectVolume(context.Background(), name); !engine.IsNotFound(err) {
			t.Fatalf("volume %s after a refused restore: %v", name, err)
		}
	}
}

// A hand-made archive that could write outside the volume, or hand a
// restore what a snapshot never holds, is refused before anything is
// created, at plan when the file is there and at apply when the plan did
// not know it. A file whose digest is not the one given is found as the
// restore streams it, and leaves no volume.
func TestAccVolume_hostileSnapshotsAreRefused(t *testing.T) {
	name := acctest.Name(t)
	root := entry{name: "./", typ: tar.TypeDir}
	cases := []struct {
		entries []entry
		trailer string
		want    string
	}{
		{[]entry{root, {name: "/etc/cron.d/x", body: "* * * * * root sh"}}, "", "has an absolute path"},
		{[]entry{root, {name: "../../x", body: "x"}}, "", "climbs out of the archive"},
		{[]entry{root, {name: "null", typ: tar.TypeChar}}, "", "is a device file or a FIFO"},
		{[]entry{root, {name: "l", link: "/etc", typ: tar.TypeSymlink}, {name: "l/passwd", body: "x"}}, "",
			`lies under "l", which is not a directory`},
		{[]entry{root, {name: "h", link: "/etc/shadow", typ: tar.TypeLink}}, "", "is a hard link to a path outside"},
		{[]entry{root, {name: "b"}, {name: "a"}}, "", `comes after "b"`},
		{[]entry{root, {name: "a"}}, "more", "is followed by bytes"},
	}
	var steps []resource.TestStep
	for i, c := range cases {
		file, sum := handMade(t, c.trailer, c.entries...)
		cfg := restoreConfig
		if i%2 == 1 {
			cfg = restoreLaterConfig
		}
		steps = append(steps, resource.TestStep{
			PreConfig:   noVolume(t, name),
			Config:      cfg(name, file, sum),
			ExpectError: regexp.MustCompile(`Snapshot refused(.|\n)*` + acctest.Phrase(c.want).String()),
		})
	}
	file, sum := handMade(t, "", root, entry{name: "a", body: "a"})
	wrong := fmt.Sprintf("%x", sha256.Sum256([]byte("another archive")))
	steps = append(steps, resource.TestStep{
		PreConfig: noVolume(t, name),
		Config:    restoreConfig(name, file, wrong),
		// Found as the restore streams it (the plan checks every entry,
		// seeking past content): the volume that held part of it is
		// removed, as the next step's noVolume checks.
		ExpectError: regexp.MustCompile(`Snapshot digest mismatch(.|\n)*` +
			acctest.Phrase(fmt.Sprintf("SHA-256 is %s, not %s", sum, wrong)).String() + `(.|\n)*` +
			acctest.Phrase("which held part of it, is removed").String()),
	}, resource.TestStep{
		PreConfig:   noVolume(t, name),
		Config:      restoreLaterConfig(name, file, wrong),
		ExpectError: regexp.MustCompile(`Snapshot digest mismatch`),
	}, resource.TestStep{
		PreConfig: noVolume(t, name),
		Config: config(name, fmt.Sprintf(`  snapshot = { file = %q, sha256 = %q }
  owner    = "65534:65534"`, file, sum)),
		PlanOnly:    true,
		ExpectError: regexp.MustCompile(`Snapshot and seed together(.|\n)*remove owner`),
	}, resource.TestStep{
		PreConfig: noVolume(t, name),
		Config:    restoreConfig(name, file, sum),
	})
	acctest.Test(t, steps)
}
