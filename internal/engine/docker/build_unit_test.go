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

// A build cut off while the engine may still make a step's image with no
// container holding the newest image the build made (a COPY or ADD under
// way, or a step begun after that image arrived) leaves the images it made:
// removing the newest would leave the step's image without its parent,
// found by no later build's cache. Cut off in a step run in a container, or
// failed by the engine, it removes them.
func TestACutBuildLeavesItsImagesWhileAStepMayCommitOnThem(t *testing.T) {
	made := strings.Repeat("ab", 32)
	for _, tc := range []struct {
		name    string
		stream  string // after the step that made the image
		cut     bool   // or the engine fails the build
		removes bool
	}{
		{"cut in a COPY", `{"stream":"Step 3/4 : COPY a.txt /a.txt\n"}`, true, false},
		{"cut in an ADD", `{"stream":"Step 3/4 : ADD a.tar /\n"}`, true, false},
		{"cut between two steps", ``, true, false},
		{"cut in a RUN", `{"stream":"Step 3/4 : RUN sleep 9\n"}{"stream":" ---> Running in 5627b55e2c82\n"}`, true, true},
		{"cut in a LABEL", `{"stream":"Step 3/4 : LABEL a=b\n"}`, true, true},
		{"failed in a COPY", `{"stream":"Step 3/4 : COPY a.txt /a.txt\n"}{"error":"no source files"}`, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			removed := make(chan string, 1)
			c := fakeEngine(t, func(w http.ResponseWriter, r *http.Request) {
				switch {
				case strings.HasSuffix(r.URL.Path, "/build"):
					_, _ = io.Copy(io.Discard, r.Body)
					_, _ = fmt.Fprintf(w, `{"stream":"Step 1/4 : FROM base\n"}{"stream":" ---> %s\n"}`+
						`{"stream":"Step 2/4 : RUN true\n"}{"stream":" ---> %s\n"}%s`, strings.Repeat("cd", 32)[:12], made[:12], tc.stream)
					if tc.cut {
						if f, ok := w.(http.Flusher); ok {
							f.Flush()
						}
						<-r.Context().Done()
					}
				case r.Method == http.MethodDelete:
					removed <- r.URL.Path
				}
			})
			lines := 0
			_, err := c.BuildImage(ctx, engine.BuildSpec{Dockerfile: "Dockerfile",
				Context: func() io.ReadCloser { return io.NopCloser(strings.NewReader("context")) }}, func(line string) {
				if lines++; lines == strings.Count(tc.stream, `"stream"`)+4 && tc.cut {
					go func() { time.Sleep(50 * time.Millisecond); cancel() }()
				}
			})
			if err == nil {
				t.Fatal("the build succeeded")
			}
			select {
			case path := <-removed:
				if !tc.removes {
					t.Errorf("removed %s", path)
				} else if !strings.Contains(path, made[:12]) {
					t.Errorf("removed %s, not the image the build made", path)
				}
			default:
				if tc.removes {
					t.Error("removed nothing")
				}
			}
		})
	}
}
