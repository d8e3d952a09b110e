package builds

import (
	"context"
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// private is a resource's private state, as the framework keeps it: a key
// set to nothing is removed.
type private map[string][]byte

func (p private) GetKey(_ context.Context, key string) ([]byte, diag.Diagnostics) { return p[key], nil }

func (p private) SetKey(_ context.Context, key string, value []byte) diag.Diagnostics {
	if len(value) == 0 {
		delete(p, key)
	} else {
		p[key] = value
	}
	return nil
}

// A build's intermediates come back with the image's ID; a build without
// any, a record that cannot be read and no record at all give none, never
// a guess.
func TestRecordedIsWhatWasRecorded(t *testing.T) {
	ctx := context.Background()
	p := private{}
	Record(ctx, p, engine.Built{ID: "sha256:f", Intermediates: []string{"aaa", "bbb"}})
	if got := Recorded(ctx, p, "sha256:f"); got.ID != "sha256:f" || !slices.Equal(got.Intermediates, []string{"aaa", "bbb"}) {
		t.Errorf("recorded %+v", got)
	}
	Record(ctx, p, engine.Built{ID: "sha256:g"})
	if got := Recorded(ctx, p, "sha256:g"); len(got.Intermediates) != 0 || len(p) != 0 {
		t.Errorf("a build without intermediates left %+v, private state %v", got, p)
	}
	p[key] = []byte(`{"not":"a list"}`)
	if got := Recorded(ctx, p, "sha256:h"); got.ID != "sha256:h" || got.Intermediates != nil {
		t.Errorf("an unreadable record gave %+v", got)
	}
	if got := Recorded(ctx, private{}, "sha256:i"); got.Intermediates != nil {
		t.Errorf("no record gave %+v", got)
	}
}
