package docker

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// An engine that lists whatever carries any one of the labels asked for,
// as Podman 4.3 does for images and volumes, does not widen a list: what
// lacks one of them is left out.
func TestListsKeepOnlyWhatCarriesEveryLabel(t *testing.T) {
	c := fakeEngine(t, func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasSuffix(r.URL.Path, "/images/json"):
			_, _ = w.Write([]byte(`[{"Id":"sha256:both","Labels":{"a":"1","b":"2"}},
				{"Id":"sha256:onlya","Labels":{"a":"1"}},{"Id":"sha256:otherb","Labels":{"a":"1","b":"3"}}]`))
		case strings.HasSuffix(r.URL.Path, "/volumes"):
			_, _ = w.Write([]byte(`{"Volumes":[
				{"Name":"v-both","Labels":{"tfsandbox.managed-by":"terraform-provider-sandbox","team":"x"}},
				{"Name":"v-team","Labels":{"team":"x"}},
				{"Name":"v-ours","Labels":{"tfsandbox.managed-by":"terraform-provider-sandbox"}}]}`))
		}
	})
	ids, err := c.ImagesLabelled(context.Background(), map[string]string{"a": "1", "b": "2"})
	if err != nil || !slices.Equal(ids, []string{"sha256:both"}) {
		t.Errorf("images: %v, %v; want only sha256:both", ids, err)
	}
	vols, err := c.ManagedVolumes(context.Background(), map[string]string{"team": "x"}, "v-")
	if err != nil || len(vols) != 1 || vols[0].Name != "v-both" {
		t.Errorf("volumes: %+v, %v; want only v-both", vols, err)
	}
}
