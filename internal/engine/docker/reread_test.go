package docker

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// fakeReadEngine answers the first `faults` inspects with status,
// then with an object (an image or a container).
func fakeReadEngine(t *testing.T, faults int32, status int) (*Client, *atomic.Int32) {
	t.Helper()
	var asked atomic.Int32
	c := fakeEngine(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if !strings.HasSuffix(r.URL.Path, "/json") {
			return // the client's version check
		}
		if asked.Add(1) <= faults {
			w.WriteHeader(status)
			_, _ = w.Write([]byte(`{"message":"failed to convert ImageData: reading image 0123: image not known"}`))
			return
		}
		_, _ = w.Write([]byte(`{"Id":"sha256:abc"}`))
	})
	return c, &asked
}

// An image read the engine failed internally is asked again; one it says
// is missing, or that keeps failing, is not asked forever.
func TestImageReadsAreAskedAgainAfterAnInternalError(t *testing.T) {
	defer func(p time.Duration) { rereadPause = p }(rereadPause)
	rereadPause = time.Millisecond
	c, asked := fakeReadEngine(t, 2, http.StatusInternalServerError)
	img, err := c.InspectImage(context.Background(), "agent")
	if err != nil || img.ID != "sha256:abc" || asked.Load() != 3 {
		t.Fatalf("two internal errors, then an answer: %q after %d reads (%v), want the image after 3", img.ID, asked.Load(), err)
	}

	c, asked = fakeReadEngine(t, 1, http.StatusNotFound)
	if _, err := c.InspectImage(context.Background(), "agent"); !engine.IsNotFound(err) || asked.Load() != 1 {
		t.Fatalf("a missing image was read %d times (%v), want once and not found", asked.Load(), err)
	}

	c, asked = fakeReadEngine(t, 100, http.StatusInternalServerError)
	if _, err := c.InspectImage(context.Background(), "agent"); err == nil || asked.Load() != rereads {
		t.Fatalf("an engine that always fails was read %d times (%v), want %d and its error", asked.Load(), err, rereads)
	}
}

// A container read the engine failed internally (Podman's, while another
// container or image changes under load) is asked again.
func TestContainerReadsAreAskedAgainAfterAnInternalError(t *testing.T) {
	defer func(p time.Duration) { rereadPause = p }(rereadPause)
	rereadPause = time.Millisecond
	c, asked := fakeReadEngine(t, 2, http.StatusInternalServerError)
	box, err := c.InspectContainer(context.Background(), "agent")
	if err != nil || box.ID != "sha256:abc" || asked.Load() != 3 {
		t.Fatalf("two internal errors, then an answer: %q after %d reads (%v), want the container after 3", box.ID, asked.Load(), err)
	}
}
