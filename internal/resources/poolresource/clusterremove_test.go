package poolresource_test

import (
	"context"
	"encoding/json"
	"regexp"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// TestAccCluster_poolRemovedWhileASandboxOfItRemains: a Sandbox made from
// the pool's template that no check before the template's removal saw (as
// one a claim takes in the instant the pool goes, whose pod does not exist
// yet; here made by hand, asleep, so that it never has a pod) keeps the
// pool's deny-all NetworkPolicy and Secret: the destroy removes the pool,
// warns, names the Sandbox and says how to remove what was kept.
func TestAccCluster_poolRemovedWhileASandboxOfItRemains(t *testing.T) {
	acctest.RequireCluster(t)
	name := acctest.ClusterName(t)
	late := name + "-late"
	ctx := context.Background()
	agents := acctest.Cluster(t).AgentsAPI()
	var token string
	t.Cleanup(func() {
		_ = agents.Delete().Namespace(acctest.ClusterNamespace).Resource("sandboxes").Name(late).Do(ctx).Error()
		_ = acctest.Cluster(t).ExtensionsAPI().Delete().Namespace(acctest.ClusterNamespace).
			Resource("sandboxtemplates").Name(name).Do(ctx).Error()
		if token != "" {
			core, network := acctest.Cluster(t).API()
			_ = core.Delete().Namespace(acctest.ClusterNamespace).Resource("secrets").
				Name("tfsandbox-" + token).Do(ctx).Error()
			_ = network.Delete().Namespace(acctest.ClusterNamespace).Resource("networkpolicies").
				Name("tfsandbox-" + token).Do(ctx).Error()
		}
	})
	t.Parallel()
	tf := acctest.NewCLI(t, poolConfig(t, name, 1, false))
	tf.Run("apply", "-auto-approve")
	token = lateSandbox(t, name, late)
	tf.SetConfig(acctest.ClusterProvider(t, ""))
	out := acctest.Flatten(tf.Run("apply", "-auto-approve"))
	want := regexp.MustCompile(`Pool removed, its network policy kept.*\(Sandbox ` + late + `\).*` +
		`kubectl delete networkpolicies,secrets -n ` + acctest.ClusterNamespace + ` -l ` +
		regexp.QuoteMeta(engine.LabelCreateToken+"="+token))
	if !want.MatchString(out) {
		t.Errorf("the destroy did not warn that the policy is kept, naming the Sandbox and the command:\n%s", out)
	}
	core, network := acctest.Cluster(t).API()
	if err := network.Get().Namespace(acctest.ClusterNamespace).Resource("networkpolicies").
		Name("tfsandbox-" + token).Do(ctx).Error(); err != nil {
		t.Errorf("the pool's policy is gone while a Sandbox made from it remains: %v", err)
	}
	if err := core.Get().Namespace(acctest.ClusterNamespace).Resource("secrets").
		Name("tfsandbox-" + token).Do(ctx).Error(); err != nil {
		t.Errorf("the pool's Secret is gone while a Sandbox made from it remains: %v", err)
	}
	err := acctest.Cluster(t).ExtensionsAPI().Get().Namespace(acctest.ClusterNamespace).
		Resource("sandboxtemplates").Name(name).Do(ctx).Error()
	if !apierrors.IsNotFound(err) {
		t.Errorf("the pool's template is still there (%v)", err)
	}
}

// lateSandbox makes by hand, as the tests' own manager, an asleep Sandbox
// named late whose pod template is the pool's, and returns the pool's
// create token.
func lateSandbox(t *testing.T, pool, late string) string {
	ctx := context.Background()
	var tmpl struct {
		Spec struct {
			PodTemplate struct {
				Metadata struct {
					Labels map[string]string `json:"labels"`
				} `json:"metadata"`
				Spec corev1.PodSpec `json:"spec"`
			} `json:"podTemplate"`
		} `json:"spec"`
	}
	raw, err := acctest.Cluster(t).ExtensionsAPI().Get().Namespace(acctest.ClusterNamespace).
		Resource("sandboxtemplates").Name(pool).Do(ctx).Raw()
	if err != nil || json.Unmarshal(raw, &tmpl) != nil {
		t.Fatalf("reading the pool's template: %v", err)
	}
	body, _ := json.Marshal(map[string]any{
		"apiVersion": "agents.x-k8s.io/v1beta1", "kind": "Sandbox", "metadata": map[string]any{"name": late},
		"spec": map[string]any{"operatingMode": "Suspended", "podTemplate": tmpl.Spec.PodTemplate},
	})
	if err := acctest.Cluster(t).AgentsAPI().Post().Namespace(acctest.ClusterNamespace).Resource("sandboxes").
		Param("fieldManager", acctest.TestFieldManager).Body(body).Do(ctx).Error(); err != nil {
		t.Fatalf("making the Sandbox %s: %v", late, err)
	}
	return tmpl.Spec.PodTemplate.Metadata.Labels[engine.LabelCreateToken]
}
