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
