package archivetest_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/archive"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/archive/archivetest"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine/kube"
)

// TestMain runs the tests; the provider's program, which reads a volume
// in a helper, runs from the test binary.
func TestMain(m *testing.M) {
	acctest.Main(m)
}

// The differential test against the real unpackers a restore feeds: every
// archive of the corpus, taken into the kept form as a snapshot does, is
// restored into a new volume through the engine's own unpacking (the
// Docker engine's and Podman's archive endpoints in their passes; on a
// cluster, the provider's program in the helper pod, and busybox's tar
// where no program runs on the node), and read back by the provider's
// program: the volume must hold exactly the entries the provider checked,
// or the provider must have refused the archive before a byte of it was
// streamed, as a restore there does. (The 8 GiB case is the hostile
// snapshot tests', which restore it end to end.)
func TestAccArchive_enginesUnpackWhatTheProviderChecked(t *testing.T) {
	acctest.RequireAcc(t)
	e := acctest.Engine(t).Backend(context.Background())
	unpackedAsChecked(t, e, e, acctest.Name(t), 0)
}

// On the test cluster (the cluster pass), with the provider's program.
func TestAccClusterArchive_helperUnpacksWhatTheProviderChecked(t *testing.T) {
	e := acctest.Cluster(t)
	unpackedAsChecked(t, e, e, acctest.ClusterName(t), 16<<20)
}

// On the test cluster with the helper image's tar, as on a node no
// program of the provider runs on.
func TestAccClusterArchive_helperTarUnpacksWhatTheProviderChecked(t *testing.T) {
	e := acctest.Cluster(t)
	tarOnly, err := kube.New(kube.Config{ConfigPath: acctest.RequireCluster(t), Namespace: acctest.ClusterNamespace,
		HelperImage: acctest.TestImage, UserAgent: acctest.TestFieldManager, TarOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	unpackedAsChecked(t, tarOnly, e, acctest.ClusterName(t), 16<<20)
}

// unpackedAsChecked restores the corpus through e and reads it back
// through reader, a client of the same engine.
func unpackedAsChecked(t *testing.T, e, reader engine.Engine, prefix string, size int64) {
	seeder, seeds := e.(engine.VolumeSeeder)
	archiver, archives := reader.(engine.VolumeArchiver)
	if !seeds || !archives {
		t.Fatalf("%s neither fills nor reads volumes", e.Where())
	}
	for i, c := range archivetest.Corpus() {
		if c.Refused != "" || strings.HasPrefix(c.Name, "8 GiB") {
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			lim := archive.Limits{MaxBytes: 1 << 30, MaxEntries: 1000}
			src, kept := &archivetest.Sparse{}, &archivetest.Sparse{}
			c.Write(t, src)
			if _, _, err := archive.Snapshot(ctx, kept, src, "", lim, &archivetest.Sparse{}); err != nil {
				t.Fatal(err)
			}
			checked := listing(t, kept)

			restore := lim
			if r, ok := e.(engine.RestoreRefuser); ok {
				refusal, err := r.EntryRefusal(ctx)
				if err != nil {
					t.Fatal(err)
				}
				restore.Unpacker = refusal
			}
			if _, err := archive.Restore(ctx, io.Discard, rewound(kept), engine.SeedDir, restore); err != nil {
				if !errors.As(err, new(*archive.UnpackerError)) {
					t.Fatal(err)
				}
				t.Logf("refused before a byte is streamed, as a restore on %s is: %v", e.Where(), err)
				return
			}
			name, token := fmt.Sprintf("%s-%02d", prefix, i), engine.NewCreateToken()
			labels := engine.OwnershipLabels("sandbox_volume")
			labels[engine.LabelCreateToken] = token
			if _, err := e.CreateVolume(ctx, engine.VolumeSpec{Name: name, Labels: labels, Size: size}); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = e.RemoveVolume(context.Background(), name, token) })

			pr, pw := io.Pipe()
			go func() {
				_, err := archive.Restore(ctx, pw, rewound(kept), engine.SeedDir, restore)
				_ = pw.CloseWithError(err)
			}()
			seed := engine.NewCreateToken()
			err := seeder.SeedVolume(ctx, name, seed, pr)
			_ = pr.Close()
			if err = errors.Join(err, seeder.CleanUpSeed(ctx, seed)); err != nil {
				t.Fatalf("restoring into %s: %v", name, err)
			}
			back := &archivetest.Sparse{}
			err = archiver.ArchiveVolume(ctx, name, engine.NewCreateToken(), nil, func(tar io.Reader) error {
				_, _, err := archive.Snapshot(ctx, back, tar, engine.SeedDir, lim, &archivetest.Sparse{})
				return err
			})
			if err != nil {
				t.Fatalf("reading %s back: %v", name, err)
			}
			if got := listing(t, back); got != checked {
				t.Errorf("%s unpacked\n%s\nnot as the provider checked it\n%s", e.Where(), got, checked)
			}
		})
	}
}

// rewound is s read from its start.
func rewound(s *archivetest.Sparse) *archivetest.Sparse {
	_, _ = s.Seek(0, io.SeekStart)
	return s
}

// listing is a kept archive's listing, from its start.
func listing(t *testing.T, s *archivetest.Sparse) string {
	t.Helper()
	return archivetest.GoListing(t, rewound(s))
}
