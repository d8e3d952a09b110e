package docker

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// An image ID the engine does not have is reported missing without a
// pull, which no registry could answer; a name is pulled once.
func TestEnsureImagePullsNamesNotIDs(t *testing.T) {
	defer func(p time.Duration) { rereadPause = p }(rereadPause)
	rereadPause = time.Millisecond
	id := "sha256:" + strings.Repeat("ab", 32)
	for _, tc := range []struct {
		ref   string
		pulls int
	}{{id, 0}, {"agent:1", 1}} {
		pulls := 0
		c := fakeEngine(t, func(w http.ResponseWriter, r *http.Request) {
			if strings.HasSuffix(r.URL.Path, "/images/create") {
				pulls++
				http.Error(w, `{"message":"no registry here"}`, http.StatusInternalServerError)
				return
			}
			http.Error(w, `{"message":"no such image"}`, http.StatusNotFound)
		})
		_, err := c.EnsureImage(context.Background(), tc.ref)
		var missing *engine.ImageMissingError
		if !errors.As(err, &missing) || pulls != tc.pulls {
			t.Errorf("%s: %v after %d pulls, want an ImageMissingError after %d", tc.ref, err, pulls, tc.pulls)
		}
		if got := errors.Is(err, engine.ErrImageIDNotPullable); got != (tc.pulls == 0) {
			t.Errorf("%s: ErrImageIDNotPullable is %v", tc.ref, got)
		}
	}
	for ref, want := range map[string]bool{id: true, "sha256:abc": false, strings.Repeat("ab", 32): false, "agent:1": false} {
		if engine.IsImageID(ref) != want {
			t.Errorf("IsImageID(%q) = %v", ref, !want)
		}
	}
}

// An image ID the engine denies for a moment, as Podman's store does while
// another client removes an image, is found when it is asked again.
func TestEnsureImageAsksAgainForAnIDDeniedForAMoment(t *testing.T) {
	defer func(p time.Duration) { rereadPause = p }(rereadPause)
	rereadPause = time.Millisecond
	id := "sha256:" + strings.Repeat("cd", 32)
	inspects := 0
	c := fakeEngine(t, func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/json") && strings.Contains(r.URL.Path, "/images/") {
			if inspects++; inspects < 3 {
				http.Error(w, `{"message":"image not known"}`, http.StatusNotFound)
				return
			}
			_, _ = w.Write([]byte(`{"Id":"` + id + `"}`))
			return
		}
		if !strings.HasSuffix(r.URL.Path, "/_ping") {
			t.Errorf("unexpected request %s %s", r.Method, r.URL.Path)
		}
	})
	img, err := c.EnsureImage(context.Background(), id)
	if err != nil || img.ID != id || inspects != 3 {
		t.Errorf("got %q, %v after %d inspects; want %s after 3", img.ID, err, inspects, id)
	}
}

// An image ID that Podman denies is asked again, for longer on a create
// (EnsureImage) than on a read (InspectImage), before it counts as gone;
// Docker's denial of one counts at once on a read. A name that Podman
// denies counts at once (a free name is the common case).
func TestPodmansDenialOfAnIDIsAskedAgain(t *testing.T) {
	defer func(p time.Duration) { rereadPause = p }(rereadPause)
	rereadPause = time.Millisecond
	id := "sha256:" + strings.Repeat("cd", 32)
	for _, tc := range []struct {
		name     string
		podman   bool
		ref      string
		ensure   bool
		inspects int
	}{
		{"Podman, a read of an ID", true, id, false, rereads},
		{"Podman, a create's check of an ID", true, id, true, podmanIDRereads},
		{"Podman, a read of a name", true, "agent:1", false, 1},
		{"Docker, a read of an ID", false, id, false, 1},
		{"Docker, a create's check of an ID", false, id, true, rereads},
	} {
		inspects := 0
		c := fakeEngine(t, func(w http.ResponseWriter, r *http.Request) {
			if tc.podman {
				w.Header().Set(podmanHeader, "4.3.1")
			}
			if strings.Contains(r.URL.Path, "/images/") {
				inspects++
			}
			http.Error(w, `{"message":"image not known"}`, http.StatusNotFound)
		})
		var err error
		if tc.ensure {
			_, err = c.EnsureImage(context.Background(), tc.ref)
		} else {
			_, err = c.InspectImage(context.Background(), tc.ref)
		}
		if !engine.IsNotFound(err) && !errors.Is(err, engine.ErrImageIDNotPullable) || inspects != tc.inspects {
			t.Errorf("%s: %v after %d inspects, want not found after %d", tc.name, err, inspects, tc.inspects)
		}
	}
}
