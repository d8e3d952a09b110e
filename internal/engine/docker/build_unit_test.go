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
		builds, opened, labels := 0, 0, "{}"
		c := fakeEngine(t, func(w http.ResponseWriter, r *http.Request) {
			if tc.podman {
				w.Header().Set(podmanHeader, "4.3.1")
			}
			switch {
			case strings.HasSuffix(r.URL.Path, "/build"):
				labels = r.URL.Query().Get("labels")
				if body, _ := io.ReadAll(r.Body); string(body) != "context" {
					t.Errorf("%s: build %d read the context %q", tc.name, builds+1, body)
				}
				if builds++; builds <= tc.fails {
					_, _ = fmt.Fprintf(w, `{"stream":"STEP 1/2: FROM base\n"}{"errorDetail":{"message":%q},"error":%[1]q}`, tc.failure)
					return
				}
				_, _ = fmt.Fprintf(w, `{"stream":"--> %s\n"}{"stream":"%s\n"}`, id[:11], id)
			case strings.Contains(r.URL.Path, "/images/"):
				_, _ = fmt.Fprintf(w, `{"Id":"sha256:%s","Config":{"Labels":%s}}`, id, labels)
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
				case strings.Contains(r.URL.Path, "/images/"+made[:12]):
					_, _ = fmt.Fprintf(w, `{"Id":"sha256:%s","Created":%q}`, made, time.Now().Format(time.RFC3339Nano))
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

// A build's output carries what its steps print: a step that prints the
// builder's own lines (" ---> ID", "Successfully built ID") names images
// the user or another build made. The provider takes as the build's only
// the image that carries the build's token, and as its intermediates only
// images the engine shows untagged and made since the build began; a
// tagged image and an older one are never removed, finished or cut off.
func TestABuildTakesNoImageItsStepsNamed(t *testing.T) {
	hex := func(s string) string { return strings.Repeat(s, 32) }
	made, final, tagged, older := hex("a1"), hex("f2"), hex("b3"), hex("c4")
	// A step's output that begins steps of its own, each with an image.
	hostile := fmt.Sprintf(`{"stream":" ---> %s\n"}{"stream":"Step 3/3 : RUN y\n"}{"stream":" ---> %s\n"}`+
		`{"stream":"Successfully built %[1]s\n"}{"stream":"Step 2/3 : RUN ./x\n"}`, tagged[:12], older[:12])
	for _, tc := range []struct {
		name   string
		podman bool
		end    string // after the RUN step's own image
		cut    bool
		id     string // the image built, "" for an error
	}{
		{"Docker", false, fmt.Sprintf(`{"stream":"Step 3/3 : LABEL t\n"}{"stream":" ---> %s\n"}{"aux":{"ID":"sha256:%s"}}`+
			`{"stream":"Successfully built %[1]s\n"}`, final[:12], final), false, final},
		{"Podman", true, fmt.Sprintf(`{"stream":"STEP 3/3: LABEL t\n"}{"stream":"--> %s\n"}{"stream":"Successfully built %[1]s\n"}`+
			`{"stream":"%s\n"}`, final[:11], final), false, final},
		{"the last ID named is not the build's", true, fmt.Sprintf(`{"stream":"%s\n"}`, tagged), false, ""},
		{"cut off in a RUN", false, `{"stream":"Step 3/3 : RUN sleep 9\n"}{"stream":" ---> Running in 5627b55e2c82\n"}`, true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var removed []string
			labels := "{}"
			c := fakeEngine(t, func(w http.ResponseWriter, r *http.Request) {
				if tc.podman {
					w.Header().Set(podmanHeader, "4.3.1")
				}
				now := time.Now().Format(time.RFC3339Nano)
				image := func(id, created, tags, labels string) {
					_, _ = fmt.Fprintf(w, `{"Id":"sha256:%s","Created":%q,"RepoTags":%s,"Config":{"Labels":%s}}`, id, created, tags, labels)
				}
				switch path := r.URL.Path; {
				case strings.HasSuffix(path, "/build"):
					labels = r.URL.Query().Get("labels")
					_, _ = io.Copy(io.Discard, r.Body)
					_, _ = fmt.Fprintf(w, `{"stream":"Step 1/3 : FROM base\n"}{"stream":" ---> %s\n"}{"stream":"Step 2/3 : RUN ./x\n"}`+
						`%s{"stream":" ---> %s\n"}%s`, hex("0d")[:12], hostile, made[:12], tc.end)
					if tc.cut {
						if f, ok := w.(http.Flusher); ok {
							f.Flush()
						}
						<-r.Context().Done()
						cancel()
					}
				case r.Method == http.MethodDelete:
					removed = append(removed, path+"?"+r.URL.RawQuery)
				case strings.Contains(path, made[:11]):
					image(made, now, "[]", "{}")
				case strings.Contains(path, final[:11]):
					image(final, now, "[]", labels)
				case strings.Contains(path, tagged[:11]):
					image(tagged, now, `["user/app:1"]`, `{}`)
				case strings.Contains(path, older[:11]):
					image(older, time.Now().Add(-time.Hour).Format(time.RFC3339Nano), `["<none>:<none>"]`, `{}`)
				}
			})
			if tc.cut {
				go func() { time.Sleep(200 * time.Millisecond); cancel() }()
			}
			built, err := c.BuildImage(ctx, engine.BuildSpec{Dockerfile: "Dockerfile",
				Context: func() io.ReadCloser { return io.NopCloser(strings.NewReader("context")) }}, func(string) {})
			if (err == nil) != (tc.id != "") || strings.TrimPrefix(built.ID, "sha256:") != tc.id {
				t.Fatalf("built %q, error %v; want %q", built.ID, err, tc.id)
			}
			if tc.id != "" && (len(built.Intermediates) != 1 || built.Intermediates[0] != made) {
				t.Errorf("intermediates %q; want only %s", built.Intermediates, made)
			}
			for _, path := range removed {
				if !strings.Contains(path, made) {
					t.Errorf("removed %s, not the image the build made", path)
				}
			}
			if tc.id == "" && len(removed) != 1 {
				t.Errorf("removed %q; want the image the build made", removed)
			}
		})
	}
}
