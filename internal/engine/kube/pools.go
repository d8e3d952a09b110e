package kube

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// A pool (engine.Pools) on a cluster that runs agent-sandbox with its
// extensions: a SandboxTemplate whose pod template is the pod the provider
// makes for a sandbox, and a SandboxWarmPool of it, which keeps warm
// Sandboxes that agents claim with a SandboxClaim. The template's network
// policy is the provider's own deny-all NetworkPolicy, never agent-sandbox's
// (its default lets a sandbox reach the internet): the template says
// Unmanaged, and the policy selects every pod made from the template by
// its create token, warm or claimed. The policy, the Secrets and the pool
// are owned by the template. A pool's ID is the template's namespace, name
// and UID, the UID marked with templateUIDPrefix.

// The API group of agent-sandbox's extensions.
const extensionsGroup = "extensions.agents.x-k8s.io"

// templateUIDPrefix marks the UID in an ID as a SandboxTemplate's.
const templateUIDPrefix = "template:"

// claimUIDLabel is the label the claim controller gives the pod of a
// Sandbox it hands to a claim: the claim's UID.
const claimUIDLabel = "agents.x-k8s.io/claim-uid"

// policyUnmanaged is the template's networkPolicyManagement that leaves
// the network policy to the provider.
const policyUnmanaged = "Unmanaged"

// sandboxTemplate is an extensions.agents.x-k8s.io/v1beta1 SandboxTemplate,
// the part the provider writes and reads.
type sandboxTemplate struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              sandboxTemplateSpec `json:"spec"`
}

type sandboxTemplateSpec struct {
	PodTemplate agentPodTemplate `json:"podTemplate"`
	// NetworkPolicy is agent-sandbox's own policy, which the provider
	// never asks for; kept raw to see one added out of band.
	NetworkPolicy              json.RawMessage `json:"networkPolicy,omitempty"`
	NetworkPolicyManagement    string          `json:"networkPolicyManagement,omitempty"`
	EnvVarsInjectionPolicy     string          `json:"envVarsInjectionPolicy,omitempty"`
	VolumeClaimTemplatesPolicy string          `json:"volumeClaimTemplatesPolicy,omitempty"`
}

// warmPool is an extensions.agents.x-k8s.io/v1beta1 SandboxWarmPool.
type warmPool struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              warmPoolSpec   `json:"spec"`
	Status            warmPoolStatus `json:"status,omitempty"`
}

type warmPoolSpec struct {
	Replicas    *int32  `json:"replicas,omitempty"`
	TemplateRef nameRef `json:"sandboxTemplateRef"`
}

type warmPoolStatus struct {
	Replicas      int32 `json:"replicas,omitempty"`
	ReadyReplicas int32 `json:"readyReplicas,omitempty"`
}

type nameRef struct {
	Name string `json:"name"`
}

// sandboxClaimList is a list of SandboxClaims, the part the provider reads.
type sandboxClaimList struct {
	Items []struct {
		metav1.ObjectMeta `json:"metadata,omitempty"`
		Spec              struct {
			WarmPoolRef nameRef `json:"warmPoolRef"`
		} `json:"spec"`
	} `json:"items"`
}

// poolID is the ID of the pool of the template t.
func poolID(t *sandboxTemplate) string {
	return t.Namespace + "/" + t.Name + "/" + templateUIDPrefix + string(t.UID)
}

// templateFor is the SandboxTemplate whose pods are pod, as podFor made
// it for the pool's sandbox: no name (the controller names each pod after
// its Sandbox) and no deadline (an expiry is a claim's).
func templateFor(name string, pod *corev1.Pod) *sandboxTemplate {
	tmpl := pod.DeepCopy()
	tmpl.Spec.ActiveDeadlineSeconds = nil
	return &sandboxTemplate{
		TypeMeta:   metav1.TypeMeta{APIVersion: extensionsGroup + "/" + agentsVersion, Kind: "SandboxTemplate"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: pod.Namespace, Labels: pod.Labels},
		Spec: sandboxTemplateSpec{
			PodTemplate:             agentPodTemplate{Metadata: agentPodMetadata{Labels: tmpl.Labels, Annotations: tmpl.Annotations}, Spec: tmpl.Spec},
			NetworkPolicyManagement: policyUnmanaged,
			// A claim adds no environment and no claims of its own.
			EnvVarsInjectionPolicy: "Disallowed", VolumeClaimTemplatesPolicy: "Disallowed",
		},
	}
}

// templateOwner is the owner reference that makes a template own its
// pool, policy and Secrets.
func templateOwner(t *sandboxTemplate) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: extensionsGroup + "/" + agentsVersion, Kind: "SandboxTemplate",
		Name: t.Name, UID: t.UID}
}

// PoolsServed checks that the cluster serves agent-sandbox's extensions.
func (c *Client) PoolsServed(ctx context.Context) error {
	err := c.call(ctx, "the request for agent-sandbox's extensions API", engine.QuickCallTimeout,
		func(ctx context.Context) error {
			return c.extensions.Get().AbsPath("/apis", extensionsGroup, agentsVersion).Do(ctx).Error()
		})
	if engine.IsNotFound(err) {
		return fmt.Errorf("the cluster at %s does not serve agent-sandbox's extensions API (%s/%s SandboxTemplate "+
			"and SandboxWarmPool), which a pool is made of: install agent-sandbox with its extensions (its CRDs, "+
			"and its controller run with --extensions), or remove the sandbox_pool", c.server, extensionsGroup,
			agentsVersion)
	}
	return err
}

// CreatePool makes the pool's Secrets, its template, the deny-all policy
// and the pool, the last three owned by the template. A pool half made is
// removed.
func (c *Client) CreatePool(ctx context.Context, spec engine.PoolSpec) (string, error) {
	if err := c.refuseSpec(ctx, spec.Sandbox); err != nil {
		return "", err
	}
	token := spec.Sandbox.Labels[engine.LabelCreateToken]
	spec.Sandbox.Name, spec.Sandbox.ExpiresAt = "", time.Time{}
	pod, err := podFor(spec.Sandbox, c.namespace, c.class)
	if err != nil {
		return "", err
	}
	secrets, err := c.makeSecrets(ctx, pod, spec.Sandbox)
	if err != nil {
		return "", err
	}
	made := &sandboxTemplate{}
	if err := c.postObject(ctx, c.extensions, "sandboxtemplates", templateFor(spec.Name, pod), made); err != nil {
		undo, cancel := context.WithTimeout(context.WithoutCancel(ctx), engine.SlowCallTimeout)
		defer cancel()
		c.removeCompanions(undo, token, secrets)
		return "", err
	}
	owner := templateOwner(made)
	policy := denyAll(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: c.namespace}}, token)
	policy.OwnerReferences = []metav1.OwnerReference{owner}
	err = c.create(ctx, c.network, "networkpolicies", policy, &networkingv1.NetworkPolicy{})
	for _, name := range secrets {
		if err == nil {
			err = c.ownSecretBy(ctx, owner, name)
		}
	}
	if err == nil {
		err = c.makeWarmPool(ctx, made, spec.Replicas)
	}
	if err != nil {
		// Undone even when the create was interrupted.
		undo, cancel := context.WithTimeout(context.WithoutCancel(ctx), engine.SlowCallTimeout)
		defer cancel()
		if removeErr := c.removeTemplate(undo, made); removeErr != nil {
			return poolID(made), err
		}
		c.removeCompanions(undo, token, secrets)
		return "", err
	}
	return poolID(made), nil
}

// makeWarmPool makes the template's pool of replicas warm sandboxes,
// named as the template and owned by it.
func (c *Client) makeWarmPool(ctx context.Context, t *sandboxTemplate, replicas int) error {
	pool := &warmPool{
		TypeMeta: metav1.TypeMeta{APIVersion: extensionsGroup + "/" + agentsVersion, Kind: "SandboxWarmPool"},
		ObjectMeta: metav1.ObjectMeta{Name: t.Name, Namespace: t.Namespace, Labels: t.Labels,
			OwnerReferences: []metav1.OwnerReference{templateOwner(t)}},
		Spec: warmPoolSpec{Replicas: ptr(int32(replicas)), TemplateRef: nameRef{Name: t.Name}},
	}
	return c.postObject(ctx, c.extensions, "sandboxwarmpools", pool, &warmPool{})
}

// postObject creates obj, an object of agent-sandbox's (its types are
// the provider's own, unknown to the client's scheme), as resource of the
// API group client speaks, and reads what the cluster made into out.
func (c *Client) postObject(ctx context.Context, client rest.Interface, resource string, obj, out any) error {
	body, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	return c.call(ctx, "the request to create a "+kindOf(resource), engine.SlowCallTimeout, func(ctx context.Context) error {
		raw, err := client.Post().Namespace(c.namespace).Resource(resource).Param("fieldManager", fieldManager).
			Body(body).Do(ctx).Raw()
		if err != nil {
			return err
		}
		return json.Unmarshal(raw, out)
	})
}

// getObject reads the object name of resource, in the API group client
// speaks, into out.
func (c *Client) getObject(ctx context.Context, client rest.Interface, namespace, resource, name string, out any) error {
	return c.call(ctx, "the request to read a "+kindOf(resource), engine.QuickCallTimeout, func(ctx context.Context) error {
		raw, err := client.Get().Namespace(namespace).Resource(resource).Name(name).Do(ctx).Raw()
		if err != nil {
			return err
		}
		return json.Unmarshal(raw, out)
	})
}

// kindOf names the kind of an extensions resource in messages.
func kindOf(resource string) string {
	switch resource {
	case "sandboxtemplates":
		return "SandboxTemplate"
	case "sandboxwarmpools":
		return "SandboxWarmPool"
	case "sandboxes":
		return "Sandbox"
	}
	return "SandboxClaim"
}

// getTemplate reads the template a pool's ID names; another template of
// that name is not found.
func (c *Client) getTemplate(ctx context.Context, id string) (*sandboxTemplate, error) {
	namespace, name, uid := c.splitID(id)
	want := types.UID(strings.TrimPrefix(string(uid), templateUIDPrefix))
	t := &sandboxTemplate{}
	err := c.getObject(ctx, c.extensions, namespace, "sandboxtemplates", name, t)
	if err == nil && t.UID != want {
		return nil, notFound{fmt.Errorf("the SandboxTemplate %s/%s is another than the pool's (UID %s, not %s)",
			namespace, name, t.UID, want)}
	}
	return t, err
}

// ScalePool sets the pool's replicas, making the pool again when it is
// gone (its template is the provider's). A SandboxWarmPool of that name
// that the template does not own is someone else's: it is refused, never
// changed.
func (c *Client) ScalePool(ctx context.Context, id string, replicas int) error {
	t, err := c.getTemplate(ctx, id)
	if err != nil {
		return err
	}
	_, err = c.ownedPool(ctx, t)
	if engine.IsNotFound(err) {
		return c.makeWarmPool(ctx, t, replicas)
	}
	if err != nil {
		return err
	}
	body := fmt.Appendf(nil, `{"spec":{"replicas":%d}}`, replicas)
	return c.call(ctx, "the request to update a SandboxWarmPool", engine.QuickCallTimeout, func(ctx context.Context) error {
		return c.extensions.Patch(types.MergePatchType).Namespace(t.Namespace).Resource("sandboxwarmpools").
			Name(t.Name).Param("fieldManager", fieldManager).Body(body).Do(ctx).Error()
	})
}

// ownedPool reads the template's SandboxWarmPool: not found when there is
// none, and an error naming it when one of its name is not the template's.
func (c *Client) ownedPool(ctx context.Context, t *sandboxTemplate) (*warmPool, error) {
	pool := &warmPool{}
	if err := c.getObject(ctx, c.extensions, t.Namespace, "sandboxwarmpools", t.Name, pool); err != nil {
		return nil, err
	}
	if ref := metav1.GetControllerOf(pool); ref == nil || ref.UID != t.UID {
		for _, o := range pool.OwnerReferences {
			if o.UID == t.UID {
				return pool, nil
			}
		}
		return nil, conflict{fmt.Errorf("the SandboxWarmPool %s/%s is not the pool's (its template does not own it): "+
			"remove it, or rename the pool", t.Namespace, t.Name)}
	}
	return pool, nil
}
