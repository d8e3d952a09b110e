package engine

import (
	"strings"
	"testing"
)

func TestKubernetesName(t *testing.T) {
	for name, want := range map[string]bool{
		"agent-1": true, "agent-1.work": true, "a": true, strings.Repeat("a", 253): true,
		"Agent": false, "agent_1": false, "-agent": false, "agent-": false, "": false, strings.Repeat("a", 254): false,
	} {
		if got := KubernetesName(name); got != want {
			t.Errorf("KubernetesName(%q) = %v, want %v", name, got, want)
		}
	}
}
