package kube

import (
	"encoding/json"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// A pool's template is the pod the provider would make, without a name or
// a deadline, whose network policy is the provider's (Unmanaged: never
// agent-sandbox's default), and whose claims add no environment or claims.
func TestTemplateFor(t *testing.T) {
	spec := hardened()
	spec.Name = ""
	pod, err := podFor(spec, "agents", "gvisor")
	if err != nil {
		t.Fatal(err)
	}
	tmpl := templateFor("pool", pod)
	raw, err := json.Marshal(tmpl)
	if err != nil {
		t.Fatal(err)
	}
	body := string(raw)
	for _, want := range []string{`"kind":"SandboxTemplate"`, `"apiVersion":"extensions.agents.x-k8s.io/v1beta1"`,
		`"networkPolicyManagement":"Unmanaged"`, `"envVarsInjectionPolicy":"Disallowed"`,
		`"volumeClaimTemplatesPolicy":"Disallowed"`, `"automountServiceAccountToken":false`, `"runtimeClassName":"gvisor"`} {
		if !strings.Contains(body, want) {
			t.Errorf("the template lacks %s: %s", want, body)
		}
	}
	if strings.Contains(body, "networkPolicy\":") || tmpl.Spec.PodTemplate.Spec.ActiveDeadlineSeconds != nil {
		t.Errorf("the template asks for agent-sandbox's policy, or keeps a deadline: %s", body)
	}
	if tmpl.Spec.PodTemplate.Metadata.Labels[engine.LabelCreateToken] == "" {
		t.Error("the template's pods carry no create token, which the deny-all policy selects them by")
	}
}

// Only pods no claim holds are warm.
func TestUnclaimed(t *testing.T) {
	pods := []*corev1.Pod{
		{ObjectMeta: metav1.ObjectMeta{Name: "warm"}},
		{ObjectMeta: metav1.ObjectMeta{Name: "held", Labels: map[string]string{claimUIDLabel: "u"}}},
	}
	if got := unclaimed(pods); len(got) != 1 || got[0].Name != "warm" {
		t.Errorf("unclaimed: %v", got)
	}
}
