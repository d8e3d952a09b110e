// Command clusterfloor measures what a Kubernetes cluster's API itself
// needs for the work a set of sandboxes takes there, the floor of the
// cluster rows of bench/run.sh: make N pods (in a RuntimeClass, with no
// service account token) each with a deny-all NetworkPolicy, and wait until
// they run; read each pod and its policy; delete the pods and wait until
// they are gone. It works at Terraform's default concurrency, through
// client-go's REST client, as the provider's Kubernetes backend does.
//
// It prints one line of tab-separated fields: N, then the seconds spent on
// each phase (create and run, read, delete). With -settle, it runs that
// command (bench/settle) before each phase, untimed.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

type options struct {
	n, parallel          int
	image, class, prefix string
	namespace            string
	settle               func()
}

func main() {
	var o options
	flag.IntVar(&o.n, "n", 10, "number of sandboxes")
	flag.IntVar(&o.parallel, "parallel", 10, "requests in flight at once (Terraform's default -parallelism is 10)")
	flag.StringVar(&o.image, "image", "tfsandbox/busybox:latest", "image the pods run, present on the node")
	flag.StringVar(&o.class, "runtime-class", "none", "RuntimeClass of the pods")
	flag.StringVar(&o.prefix, "prefix", "tfbench-floor", "pod name prefix")
	flag.StringVar(&o.namespace, "namespace", "default", "namespace")
	kubeconfig := flag.String("kubeconfig", os.Getenv("KUBECONFIG"), "kubeconfig")
	settleCmd := flag.String("settle", "", "command to run, untimed, before each phase (bench/settle)")
	flag.Parse()
	o.settle = func() {
		if *settleCmd != "" {
			cmd := exec.Command(*settleCmd)
			cmd.Stderr = os.Stderr
			_ = cmd.Run()
		}
	}
	if err := run(context.Background(), *kubeconfig, o); err != nil {
		fmt.Fprintln(os.Stderr, "clusterfloor:", err)
		os.Exit(1)
	}
}

// clients are REST clients of the core and networking API groups.
func clients(kubeconfig string) (core, network *rest.RESTClient, err error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, nil, err
	}
	cfg.QPS, cfg.Burst = 100, 200
	s := runtime.NewScheme()
	_ = corev1.AddToScheme(s)
	_ = networkingv1.AddToScheme(s)
	metav1.AddToGroupVersion(s, schema.GroupVersion{Version: "v1"})
	codecs := serializer.NewCodecFactory(s)
	client := func(gv schema.GroupVersion, path string) (*rest.RESTClient, error) {
		c := rest.CopyConfig(cfg)
		c.GroupVersion, c.APIPath, c.NegotiatedSerializer = &gv, path, codecs.WithoutConversion()
		return rest.RESTClientFor(c)
	}
	if core, err = client(corev1.SchemeGroupVersion, "/api"); err != nil {
		return nil, nil, err
	}
	network, err = client(networkingv1.SchemeGroupVersion, "/apis")
	return core, network, err
}

func run(ctx context.Context, kubeconfig string, o options) error {
	core, network, err := clients(kubeconfig)
	if err != nil {
		return err
	}
	name := func(i int) string { return fmt.Sprintf("%s-%d", o.prefix, i) }
	o.settle()
	create, err := timed(o.n, o.parallel, func(i int) error {
		return makeSandbox(ctx, core, network, o, name(i))
	})
	defer func() {
		for i := range o.n {
			_ = core.Delete().Namespace(o.namespace).Resource("pods").Name(name(i)).Do(ctx).Error()
			_ = network.Delete().Namespace(o.namespace).Resource("networkpolicies").Name(name(i)).Do(ctx).Error()
		}
	}()
	if err != nil {
		return err
	}
	o.settle()
	read, err := timed(o.n, o.parallel, func(i int) error {
		if err := core.Get().Namespace(o.namespace).Resource("pods").Name(name(i)).Do(ctx).Into(&corev1.Pod{}); err != nil {
			return err
		}
		return network.Get().Namespace(o.namespace).Resource("networkpolicies").Name(name(i)).Do(ctx).
			Into(&networkingv1.NetworkPolicy{})
	})
	if err != nil {
		return err
	}
	o.settle()
	remove, err := timed(o.n, o.parallel, func(i int) error {
		zero := int64(0)
		if err := core.Delete().Namespace(o.namespace).Resource("pods").Name(name(i)).
			Body(&metav1.DeleteOptions{GracePeriodSeconds: &zero}).Do(ctx).Error(); err != nil {
			return err
		}
		if err := network.Delete().Namespace(o.namespace).Resource("networkpolicies").Name(name(i)).Do(ctx).Error(); err != nil {
			return err
		}
		return waitFor(ctx, func() bool {
			return core.Get().Namespace(o.namespace).Resource("pods").Name(name(i)).Do(ctx).Error() != nil
		})
	})
	if err != nil {
		return err
	}
	fmt.Printf("%d\t%.3f\t%.3f\t%.3f\n", o.n, create.Seconds(), read.Seconds(), remove.Seconds())
	return nil
}

// makeSandbox makes one sandbox's pod and policy, and waits until it runs.
func makeSandbox(ctx context.Context, core, network *rest.RESTClient, o options, name string) error {
	no := false
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: o.namespace, Labels: map[string]string{"tfbench": name}},
		Spec: corev1.PodSpec{
			RuntimeClassName: &o.class, AutomountServiceAccountToken: &no, EnableServiceLinks: &no,
			Containers: []corev1.Container{{Name: "sandbox", Image: o.image, ImagePullPolicy: corev1.PullIfNotPresent,
				Command: []string{"tail", "-f", "/dev/null"}}},
		},
	}
	if err := core.Post().Namespace(o.namespace).Resource("pods").Body(pod).Do(ctx).Error(); err != nil {
		return err
	}
	policy := &networkingv1.NetworkPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: o.namespace},
		Spec: networkingv1.NetworkPolicySpec{
			PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{"tfbench": name}},
			PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress, networkingv1.PolicyTypeEgress},
		},
	}
	if err := network.Post().Namespace(o.namespace).Resource("networkpolicies").Body(policy).Do(ctx).Error(); err != nil {
		return err
	}
	return waitFor(ctx, func() bool {
		got := &corev1.Pod{}
		err := core.Get().Namespace(o.namespace).Resource("pods").Name(name).Do(ctx).Into(got)
		return err == nil && got.Status.Phase == corev1.PodRunning
	})
}

// waitFor polls done every 250 ms, as the provider does, for up to ten
// minutes.
func waitFor(ctx context.Context, done func() bool) error {
	deadline := time.Now().Add(10 * time.Minute)
	for !done() {
		if time.Now().After(deadline) {
			return fmt.Errorf("gave up waiting after 10 minutes")
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
	return nil
}

// timed runs f for 0..n-1, at most parallel at once, and returns how long
// it took.
func timed(n, parallel int, f func(int) error) (time.Duration, error) {
	start := time.Now()
	sem := make(chan struct{}, parallel)
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
	)
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if err := f(i); err != nil {
				mu.Lock()
				if firstErr == nil {
					firstErr = err
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return time.Since(start), firstErr
}
