package kube

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// PoolID is the ID of the pool whose template an import names. The
// template is read by name; an ID's UID must be the template's. A template
// with the provider's create token in its labels is the provider's only
// when its managed fields record the provider writing that label: labels
// alone are copied by anyone, and a copy of a pool's template is not the
// pool.
func (c *Client) PoolID(ctx context.Context, nameOrID string) (string, error) {
	namespace, name, uid := c.splitID(nameOrID)
	if name == "" {
		return "", fmt.Errorf("%q names no SandboxTemplate: give namespace/name, or a name in %s", nameOrID, c.namespace)
	}
	t := &sandboxTemplate{}
	if err := c.getObject(ctx, c.extensions, namespace, "sandboxtemplates", name, t); err != nil {
		return "", err
	}
	if want := types.UID(strings.TrimPrefix(string(uid), templateUIDPrefix)); uid != "" && t.UID != want {
		return "", notFound{fmt.Errorf("the SandboxTemplate %s/%s is another than the one named (UID %s, not %s)",
			namespace, name, t.UID, want)}
	}
	if t.Labels[engine.LabelCreateToken] != "" && !labelsWrittenByProvider(t.ManagedFields) {
		return "", fmt.Errorf("the SandboxTemplate %s/%s carries the provider's labels, but its managed fields do not "+
			"show the provider writing them: it is a copy, not a pool the provider made (remove the labels %s and %s "+
			"from it to import it as a template made by hand)", namespace, name, engine.LabelManagedBy, engine.LabelCreateToken)
	}
	return poolID(t), nil
}
