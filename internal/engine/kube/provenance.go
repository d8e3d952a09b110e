package kube

import (
	"bytes"
	"context"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// What proves that the provider made a pod. Its labels and annotations
// prove nothing alone: anyone who may create pods in the namespace can
// copy them, and a controller's pod template can carry them. The API
// server records, in the pod's managed fields, the field manager of the
// request that created each field, which the provider names as itself; a
// copy made with kubectl records kubectl. (A client may send managed
// fields of its choosing, so this is proof against mistakes and copies,
// not against someone who forges them on purpose; nothing the provider
// does on the strength of it removes anything: a sandbox's pod is removed
// only by the UID its state recorded.)

// tokenField is how managed fields name the create token's label.
var tokenField = []byte(`"f:` + engine.LabelCreateToken + `"`)

// madeByProvider reports whether the provider created the pod: its
// managed fields record the provider as the manager of the create token's
// label.
func madeByProvider(pod *corev1.Pod) bool {
	return labelsWrittenByProvider(pod.ManagedFields)
}

// labelsWrittenByProvider reports whether the managed fields of an object
// record the provider as the manager of its create token's label.
func labelsWrittenByProvider(fields []metav1.ManagedFieldsEntry) bool {
	for _, f := range fields {
		if f.Manager == fieldManager && f.Operation == metav1.ManagedFieldsOperationUpdate && f.FieldsV1 != nil &&
			bytes.Contains(f.FieldsV1.GetRawBytes(), tokenField) {
			return true
		}
	}
	return false
}

// ProvenanceOf says who made the sandbox s: the provider where the pod's
// managed fields prove it; by hand where the pod carries none of the
// provider's labels or annotations.
func (c *Client) ProvenanceOf(ctx context.Context, s engine.Sandbox) (engine.Provenance, error) {
	if isSandboxID(s.ID) {
		return c.agentSandboxProvenance(ctx, s.ID)
	}
	pod, err := c.getPod(ctx, s.ID)
	if engine.IsNotFound(err) && engine.IsAsleep(s) {
		// Asleep: the policy that stands for it was found as the
		// provider's (sleep.go).
		if _, err := c.asleep(ctx, s.ID); err == nil {
			return engine.MadeByProvider, nil
		}
	}
	switch {
	case err != nil:
		return 0, err
	case madeByProvider(pod):
		return engine.MadeByProvider, nil
	case engine.CarriesProviderLabels(pod.Labels) || engine.CarriesProviderLabels(pod.Annotations):
		return engine.LabelsNotItsOwn, nil
	}
	return engine.MadeByHand, nil
}
