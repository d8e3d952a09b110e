package docker

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// A build that Podman fails because an image or layer went from its store
// while the build read it is run again, with a new stream of the context;
// one that fails otherwise, or that Docker fails, is not.
func TestBuildRunsAgainAfterPodmansStorageRace(t *testing.T) {
	defer func(p time.Duration) { storageRacePause = p }(storageRacePause)
	storageRacePause = time.Millisecond
	id := strings.Repeat("ef", 32)
	race := "checking if cached image exists from a previous build: getting top layer info: layer not known"
	for _, tc := range []struct {
		name    string
		podman  bool
		failure string
		fails   int // builds that fail before one succeeds
		builds  int
		ok      bool
	}{
		{"Podman's race, once", true, race, 1, 2, true},
		{"Podman's race, every time", true, race, 9, storageRaceBuilds, false},
		{"Podman, a step that failed", true, "building at STEP \"RUN false\": exit status 1", 1, 1, false},
		{"Docker", false, race, 1, 1, false},
	} {
		builds, opened := 0, 0
		c := fakeEngine(t, func(w http.ResponseWriter, r *http.Request) {
			if tc.podman {
				w.Header().Set(podmanHeader, "4.3.1")
			}
			switch {
			case strings.HasSuffix(r.URL.Path, "/build"):
				if body, _ := io.ReadAll(r.Body); string(body) != "context" {
					t.Errorf("%s: build %d read the context %q", tc.name, builds+1, body)
				}
				if builds++; builds <= tc.fails {
					_, _ = fmt.Fprintf(w, `{"stream":"STEP 1/2: FROM base\n"}{"errorDetail":{"message":%q},"error":%[1]q}`, tc.failure)
					return
				}
				_, _ = fmt.Fprintf(w, `{"stream":"--> %s\n"}{"stream":"%s\n"}`, id[:11], id)
			case strings.Contains(r.URL.Path, "/images/"):
				_, _ = fmt.Fprintf(w, `{"Id":"sha256:%s"}`, id)
			}
		})
		built, err := c.BuildImage(context.Background(), engine.BuildSpec{Dockerfile: "Dockerfile",
			Context: func() io.ReadCloser { opened++; return io.NopCloser(strings.NewReader("context")) }}, func(string) {})
		if builds != tc.builds || opened != tc.builds || (err == nil) != tc.ok {
			t.Errorf("%s: %d builds, %d contexts opened, error %v; want %d builds, ok %v", tc.name, builds, opened,
				err, tc.builds, tc.ok)
		}
		if tc.ok && built.ID != "sha256:"+id {
			t.Errorf("%s: built %q", tc.name, built.ID)
		}
	}
}
