// Command claim measures, on a cluster that runs agent-sandbox, how long an
// agent waits for a sandbox: from creating a SandboxClaim against a warm
// sandbox_pool (made through the provider's own Kubernetes backend) to a
// ready pod that runs a command, against a cold sandbox_container create
// through the same backend (create, start, run a command), each -n times,
// one at a time. Between claims it waits, untimed, until the pool is warm
// again, so that every claim meets a warm pool.
//
// It prints one line per measurement, tab-separated: "warm" or "cold", and
// the seconds.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine/kube"
)

type options struct {
	n                     int
	image, class, prefix  string
	namespace, kubeconfig string
}

func main() {
	var o options
	flag.IntVar(&o.n, "n", 20, "claims, and cold creates, to time")
	flag.StringVar(&o.image, "image", "tfsandbox/busybox:latest", "image the sandboxes run, present on the node")
	flag.StringVar(&o.class, "runtime-class", "gvisor", "RuntimeClass of the sandboxes")
	flag.StringVar(&o.prefix, "prefix", "tfbench-claim", "name prefix of the pool, claims and sandboxes")
	flag.StringVar(&o.namespace, "namespace", "default", "namespace")
	flag.StringVar(&o.kubeconfig, "kubeconfig", os.Getenv("KUBECONFIG"), "kubeconfig")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	if err := run(ctx, o); err != nil {
		fmt.Fprintln(os.Stderr, "claim:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, o options) error {
	c, err := kube.New(kube.Config{ConfigPath: o.kubeconfig, Namespace: o.namespace, RuntimeClass: o.class, HelperImage: o.image})
	if err != nil {
		return err
	}
	sandbox := func() engine.ContainerSpec {
		labels := engine.OwnershipLabels("sandbox_pool")
		labels[engine.LabelCreateToken] = engine.NewCreateToken()
		return engine.ContainerSpec{Image: o.image, NetworkMode: "none", Init: true, Labels: labels,
			Entrypoint: []string{"tail", "-f", "/dev/null"}, CapDrop: []string{"ALL"}, SecurityOpt: []string{"no-new-privileges"}}
	}
	id, err := c.CreatePool(ctx, engine.PoolSpec{Name: o.prefix, Replicas: 2, Sandbox: sandbox()})
	if err != nil {
		return fmt.Errorf("making the pool: %w", err)
	}
	defer func() { _ = c.RemovePool(context.WithoutCancel(ctx), id) }()
	for i := range o.n {
		if err := warm(ctx, c, id); err != nil {
			return err
		}
		secs, err := claim(ctx, c, o, fmt.Sprintf("%s-%d", o.prefix, i))
		if err != nil {
			return err
		}
		fmt.Printf("warm\t%.3f\n", secs)
	}
	for i := range o.n {
		spec := sandbox()
		spec.Name = fmt.Sprintf("%s-cold-%d", o.prefix, i)
		start := time.Now()
		sid, err := c.CreateContainer(ctx, spec)
		if err == nil {
			err = c.StartContainer(ctx, sid)
		}
		if err == nil {
			err = ran(ctx, c, sid)
		}
		secs := time.Since(start).Seconds()
		if sid != "" {
			_ = c.RemoveContainer(ctx, sid)
		}
		if err != nil {
			return fmt.Errorf("a cold create: %w", err)
		}
		fmt.Printf("cold\t%.3f\n", secs)
	}
	return nil
}

// warm waits until the pool has as many ready warm sandboxes as it keeps.
func warm(ctx context.Context, c *kube.Client, id string) error {
	for {
		p, err := c.InspectPool(ctx, id)
		if err != nil {
			return err
		}
		if p.Ready >= p.Replicas && len(p.Sandboxes)-len(p.Claimed()) >= p.Replicas {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the pool did not become warm: %w", ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// claim times one claim, from its create to a command run in its ready
// pod, then ends it.
func claim(ctx context.Context, c *kube.Client, o options, name string) (float64, error) {
	ext := c.ExtensionsAPI()
	core, _ := c.API()
	body := fmt.Sprintf(`{"apiVersion":"extensions.agents.x-k8s.io/v1beta1","kind":"SandboxClaim",`+
		`"metadata":{"name":%q},"spec":{"warmPoolRef":{"name":%q}}}`, name, o.prefix)
	start := time.Now()
	made := &metav1.PartialObjectMetadata{}
	raw, err := ext.Post().Namespace(o.namespace).Resource("sandboxclaims").Body([]byte(body)).Do(ctx).Raw()
	if err == nil {
		err = json.Unmarshal(raw, made)
	}
	if err != nil {
		return 0, fmt.Errorf("claiming: %w", err)
	}
	defer func() {
		_ = ext.Delete().Namespace(o.namespace).Resource("sandboxclaims").Name(name).Do(context.WithoutCancel(ctx)).Error()
	}()
	for {
		list := &corev1.PodList{}
		err := core.Get().Namespace(o.namespace).Resource("pods").
			Param("labelSelector", "agents.x-k8s.io/claim-uid="+string(made.UID)).Do(ctx).Into(list)
		if err == nil && len(list.Items) == 1 && ready(&list.Items[0]) {
			if err := ran(ctx, c, o.namespace+"/"+list.Items[0].Name); err != nil {
				return 0, err
			}
			return time.Since(start).Seconds(), nil
		}
		select {
		case <-ctx.Done():
			return 0, fmt.Errorf("claim %s got no ready sandbox: %w", name, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func ready(pod *corev1.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// ran runs a command in the sandbox: it can exec.
func ran(ctx context.Context, c *kube.Client, id string) error {
	res, err := c.RunExec(ctx, id, engine.ExecSpec{Command: []string{"true"}})
	if err == nil && res.ExitCode != 0 {
		err = fmt.Errorf("exit %d", res.ExitCode)
	}
	return err
}
