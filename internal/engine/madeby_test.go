package engine

import (
	"testing"
	"time"
)

func TestMadeInWindow(t *testing.T) {
	at := time.Date(2026, 12, 4, 22, 0, 0, 0, time.UTC)
	labels := map[string]string{LabelMadeAt: MadeAt(at)}
	for name, c := range map[string]struct {
		labels  map[string]string
		created string
		want    bool
	}{
		"made at once":                    {labels, at.Add(300 * time.Millisecond).Format(time.RFC3339Nano), true},
		"engine clock read a little late": {labels, at.Add(-20 * time.Second).Format(time.RFC3339Nano), true},
		"made before the create asked":    {labels, at.Add(-time.Minute).Format(time.RFC3339Nano), false},
		"at the end of the create's deadline": {labels,
			at.Add(SlowCallTimeout + 29*time.Second).Format(time.RFC3339Nano), true},
		"made after the create's deadline":    {labels, at.Add(SlowCallTimeout + time.Minute).Format(time.RFC3339Nano), false},
		"a copy made an hour later":           {labels, at.Add(time.Hour).Format(time.RFC3339Nano), false},
		"made before the record existed":      {map[string]string{}, at.Format(time.RFC3339Nano), true},
		"a record that does not parse":        {map[string]string{LabelMadeAt: "yesterday"}, at.Format(time.RFC3339Nano), false},
		"a creation time that does not parse": {labels, "", false},
		"an engine's time in another zone": {labels,
			at.In(time.FixedZone("", 3600)).Add(time.Second).Format(time.RFC3339Nano), true},
	} {
		if got := MadeInWindow(c.labels, c.created); got != c.want {
			t.Errorf("%s: MadeInWindow = %v, want %v", name, got, c.want)
		}
	}
}

func TestFirstMade(t *testing.T) {
	at := time.Date(2026, 12, 4, 22, 0, 0, 0, time.UTC)
	original := Made{ID: "original", Created: at}
	copied := Made{ID: "copy", Created: at.Add(time.Second)}
	for name, c := range map[string]struct {
		id   string
		made []Made
		want bool
	}{
		"the only one":                    {"original", []Made{original}, true},
		"the original beside its copy":    {"original", []Made{copied, original}, true},
		"the copy beside its original":    {"copy", []Made{original, copied}, false},
		"the copy once the original went": {"copy", []Made{copied}, true},
		"two made at the same instant":    {"original", []Made{original, {ID: "twin", Created: at}}, false},
		"one not listed":                  {"original", []Made{copied}, false},
		"none":                            {"original", nil, false},
	} {
		if got := FirstMade(c.id, c.made); got != c.want {
			t.Errorf("%s: FirstMade = %v, want %v", name, got, c.want)
		}
	}
}

func TestVolumeMadeWithItsName(t *testing.T) {
	labels := map[string]string{LabelManagedBy: ManagedByValue, LabelCreateToken: "t1", LabelMadeAs: "work"}
	if !VolumeMadeWith(Volume{Name: "work", Labels: labels}, "t1") {
		t.Error("the volume made as work is not the provider's")
	}
	if VolumeMadeWith(Volume{Name: "work-copy", Labels: labels}, "t1") {
		t.Error("a copy of its labels under another name is the provider's")
	}
	older := map[string]string{LabelManagedBy: ManagedByValue, LabelCreateToken: "t1"}
	if !VolumeMadeWith(Volume{Name: "work", Labels: older}, "t1") {
		t.Error("a volume made before LabelMadeAs existed is not the provider's")
	}
}

func TestCarriesProviderLabels(t *testing.T) {
	if CarriesProviderLabels(map[string]string{"team": "agents", "tfsandbox.acctest": "foreign"}) {
		t.Error("labels that claim no ownership are the provider's")
	}
	if !CarriesProviderLabels(map[string]string{"team": "agents", LabelCreateToken: "t"}) {
		t.Error("a create token is not the provider's label")
	}
}
