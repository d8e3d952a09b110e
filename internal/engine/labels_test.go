package engine

import (
	"testing"
)

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
