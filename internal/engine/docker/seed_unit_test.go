package docker

import (
	"archive/tar"
	"context"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// Two helper images imported with the same content share no layer: each
// holds an empty directory named by its own build token, which its labels
// carry too. Podman 4.3 deletes a layer two imports share with the first
// image's removal, failing the second import.
func TestImportedHelperImagesShareNoLayer(t *testing.T) {
	var names [][]string
	var changes [][]string
	c := fakeEngine(t, func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "/images/create") {
			http.NotFound(w, r)
			return
		}
		changes = append(changes, r.URL.Query()["changes"])
		var files []string
		tr := tar.NewReader(r.Body)
		for {
			hdr, err := tr.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Errorf("reading the imported tar: %v", err)
				break
			}
			files = append(files, hdr.Name)
		}
		names = append(names, files)
		_, _ = io.WriteString(w, `{"status":"sha256:`+strings.Repeat("ab", 32)+`"}`)
	})
	tokens := []string{engine.NewCreateToken(), engine.NewCreateToken()}
	for _, token := range tokens {
		if _, err := c.importHelperImage(context.Background(), "vol", token, nil); err != nil {
			t.Fatal(err)
		}
	}
	if len(names) != 2 {
		t.Fatalf("%d imports reached the engine, want 2", len(names))
	}
	for i, token := range tokens {
		if want := []string{importMark + token + "/"}; !slices.Equal(names[i], want) {
			t.Errorf("import %d holds %q, want %q", i+1, names[i], want)
		}
		if !slices.Contains(changes[i], "LABEL "+engine.LabelBuildToken+"="+token) {
			t.Errorf("import %d's changes %q do not carry its build token", i+1, changes[i])
		}
	}
}
