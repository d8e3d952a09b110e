package kube

import (
	"context"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// RemovePool refuses while a claim holds a sandbox made from the template
// (the template's policy and Secrets are what it runs under), then removes
// the pool, waits until its warm sandboxes are gone, and looks again for a
// claim that took one meanwhile. A claim can still take a sandbox in the
// instant before the warm pool goes, and a claim's Sandbox has no pod yet
// at first: so the template goes with its policy and Secrets orphaned,
// and they are removed only when, the template gone (no claim can take a
// sandbox any more), no Sandbox made from it remains. One that does keeps
// them: a ClaimedError with Kept set. A pool already gone is removed.
func (c *Client) RemovePool(ctx context.Context, id string) error {
	t, err := c.getTemplate(ctx, id)
	if engine.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := c.refuseClaimed(ctx, t); err != nil {
		return err
	}
	if err := c.removeWarmPool(ctx, t); err != nil {
		return err
	}
	if err := c.refuseClaimed(ctx, t); err != nil {
		return err
	}
	// Finished even when interrupted: an orphaned Secret holds env_wo.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 3*engine.SlowCallTimeout)
	defer cancel()
	token := t.Spec.PodTemplate.Metadata.Labels[engine.LabelCreateToken]
	err = c.call(ctx, "the request to remove a SandboxTemplate", engine.SlowCallTimeout, func(ctx context.Context) error {
		orphan := metav1.DeletePropagationOrphan
		return c.extensions.Delete().Namespace(t.Namespace).Resource("sandboxtemplates").Name(t.Name).
			Body(&metav1.DeleteOptions{PropagationPolicy: &orphan, Preconditions: &metav1.Preconditions{UID: &t.UID}}).
			Do(ctx).Error()
	})
	if err != nil && !engine.IsNotFound(err) && !engine.IsConflict(err) {
		return err
	}
	err = waitGone(ctx, "the SandboxTemplate "+t.Namespace+"/"+t.Name, engine.SlowCallTimeout, func(ctx context.Context) bool {
		_, err := c.getTemplate(ctx, poolID(t))
		return engine.IsNotFound(err)
	})
	if err != nil || token == "" {
		return err
	}
	held, err := c.sandboxesMadeWith(ctx, t.Namespace, token)
	if err != nil {
		return err
	}
	if len(held) > 0 {
		return &engine.ClaimedError{Pool: t.Namespace + "/" + t.Name, Claims: held,
			Kept: fmt.Sprintf("kubectl delete networkpolicies,secrets -n %s -l %s=%s", t.Namespace,
				engine.LabelCreateToken, token)}
	}
	// Orphaned, they are the provider's by the template's create token.
	return c.removeCompanionsIn(ctx, t.Namespace, token, []string{companionName(token), pullSecretName(token)})
}

// removeWarmPool removes the template's SandboxWarmPool and waits until
// its warm sandboxes are gone.
func (c *Client) removeWarmPool(ctx context.Context, t *sandboxTemplate) error {
	pool, err := c.ownedPool(ctx, t)
	if err == nil {
		err = c.call(ctx, "the request to remove a SandboxWarmPool", engine.SlowCallTimeout, func(ctx context.Context) error {
			return c.extensions.Delete().Namespace(t.Namespace).Resource("sandboxwarmpools").Name(t.Name).
				Body(deleteOptions(pool.UID, 0)).Do(ctx).Error()
		})
	}
	if err != nil && !engine.IsNotFound(err) && !engine.IsConflict(err) {
		return err
	}
	return waitGone(ctx, "the warm sandboxes of pool "+t.Namespace+"/"+t.Name, engine.SlowCallTimeout,
		func(ctx context.Context) bool {
			pods, err := c.templatePods(ctx, t)
			return err == nil && len(unclaimed(pods)) == 0
		})
}

// sandboxesMadeWith names the Sandboxes whose pods carry the create token
// (made from a pool's template), each by the claim that controls it, or
// by its own name. Those being removed are left out, and so are those a
// warm pool still controls: the pool is gone, and the garbage collector
// removes them.
func (c *Client) sandboxesMadeWith(ctx context.Context, namespace, token string) ([]string, error) {
	list, err := c.listSandboxObjects(ctx, namespace, "")
	if err != nil {
		return nil, err
	}
	var out []string
	for i := range list.Items {
		s := &list.Items[i]
		if s.DeletionTimestamp != nil || s.Spec.PodTemplate.Metadata.Labels[engine.LabelCreateToken] != token {
			continue
		}
		name := "(Sandbox " + s.Name + ")"
		switch ref := metav1.GetControllerOf(s); {
		case ref != nil && ref.Kind == "SandboxWarmPool":
			continue
		case ref != nil && ref.Kind == "SandboxClaim":
			name = ref.Name
		}
		out = append(out, name)
	}
	return out, nil
}

// removeTemplate removes the template, by its UID, and what it owns.
func (c *Client) removeTemplate(ctx context.Context, t *sandboxTemplate) error {
	err := c.call(ctx, "the request to remove a SandboxTemplate", engine.SlowCallTimeout, func(ctx context.Context) error {
		return c.extensions.Delete().Namespace(t.Namespace).Resource("sandboxtemplates").Name(t.Name).
			Body(deleteOptions(t.UID, 0)).Do(ctx).Error()
	})
	if engine.IsNotFound(err) || engine.IsConflict(err) {
		return nil
	}
	return err
}

// refuseClaimed is a ClaimedError when a claim holds a sandbox made from
// the template.
func (c *Client) refuseClaimed(ctx context.Context, t *sandboxTemplate) error {
	pods, err := c.templatePods(ctx, t)
	if err != nil {
		return err
	}
	claims, err := c.claimNames(ctx, pods)
	if err != nil {
		return err
	}
	var held []string
	for _, p := range pods {
		if uid := p.Labels[claimUIDLabel]; uid != "" {
			held = append(held, claims[types.UID(uid)])
		}
	}
	if len(held) == 0 {
		return nil
	}
	return &engine.ClaimedError{Pool: t.Namespace + "/" + t.Name, Claims: held,
		Command: fmt.Sprintf("kubectl delete sandboxclaims.%s -n %s %s", extensionsGroup, t.Namespace,
			strings.Join(held, " "))}
}
