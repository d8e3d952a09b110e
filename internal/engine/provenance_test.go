package engine

import (
	"testing"

	"github.com/docker/docker/api/types/image"
)

// An image the provider built ends with its build's labels, the build
// token among them, whichever builder wrote them; a child image or a
// commit ends with entries of its own.
func TestNewestEntrySets(t *testing.T) {
	const token = "0123abcd"
	entries := func(by ...string) []image.HistoryResponseItem {
		var h []image.HistoryResponseItem
		for _, b := range by {
			h = append(h, image.HistoryResponseItem{CreatedBy: b})
		}
		return h
	}
	tests := map[string]struct {
		history []image.HistoryResponseItem
		want    bool
	}{
		"Docker's classic builder, one entry a label": {entries(
			"/bin/sh -c #(nop)  LABEL tfsandbox.resource-type=sandbox_container",
			"/bin/sh -c #(nop)  LABEL tfsandbox.build-token="+token,
			"/bin/sh -c #(nop) COPY dir:abc in / "), true},
		"Podman, one entry for all": {entries(
			`/bin/sh -c #(nop) LABEL "tfsandbox.build-token"="`+token+`" "tfsandbox.managed-by"="terraform-provider-sandbox"`,
			"/bin/sh -c echo hi"), true},
		"a child built FROM it": {entries("/bin/sh -c echo more",
			"/bin/sh -c #(nop)  LABEL tfsandbox.build-token="+token), false},
		"a docker commit of a sandbox": {entries("tail -f /dev/null",
			"/bin/sh -c #(nop)  LABEL tfsandbox.build-token="+token), false},
		"another build's token": {entries("/bin/sh -c #(nop)  LABEL tfsandbox.build-token=ffff"), false},
		"no history":            {nil, false},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			if got := newestEntrySets(tt.history, token); got != tt.want {
				t.Errorf("newestEntrySets = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestCreatedByProvider(t *testing.T) {
	own := map[string]string{LabelManagedBy: ManagedByValue, LabelCreateToken: "t1"}
	if !CreatedByProvider(own, map[string]string{LabelManagedBy: ManagedByValue}) {
		t.Error("a container with its own create token is not the provider's")
	}
	if CreatedByProvider(own, map[string]string{LabelCreateToken: "t1"}) {
		t.Error("a container that inherited its create token from its image is the provider's")
	}
	if CreatedByProvider(map[string]string{LabelManagedBy: ManagedByValue}, nil) {
		t.Error("a container without a create token is the provider's")
	}
}
