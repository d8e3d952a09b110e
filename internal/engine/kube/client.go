// Package kube is the Kubernetes backend: it runs sandboxes as pods on a
// cluster, behind the same engine.Engine seam as the Docker engine, and is
// the only package that talks to the cluster (client-go's REST client and
// the API's own types, without the generated clientset, whose every API
// group would cost every provider process memory at start).
//
// A sandbox is a pod in the configured namespace, in the RuntimeClass whose
// pods have no network, beside a deny-all NetworkPolicy and, for its
// write-only environment, a Secret, both owned by the pod so that the
// cluster removes them with it. The pod's data is given back as the seam's
// engine.Container, and its network and namespaces as a pod's
// (observe.go), for isolation.Assess.
package kube

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	nodev1 "k8s.io/api/node/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// DefaultRuntimeClass is the RuntimeClass sandboxes run in unless the
// provider names another: gVisor, with no network stack.
const DefaultRuntimeClass = "gvisor"

// fieldManager is the name the provider writes to the cluster under; the
// managed fields of what it creates record it (provenance.go).
const fieldManager = "terraform-provider-sandbox"

// Config says which cluster to reach and how.
type Config struct {
	// ConfigPath is a kubeconfig file; empty: KUBECONFIG, then
	// ~/.kube/config, then the pod's own service account when the provider
	// runs in a cluster.
	ConfigPath string
	// Context is the kubeconfig context; empty: its current context.
	Context string
	// Namespace is where sandboxes go; empty: the context's namespace, else
	// "default".
	Namespace string
	// RuntimeClass is the RuntimeClass whose pods have no network, which
	// every sandbox runs in; empty: DefaultRuntimeClass.
	RuntimeClass string
	// HelperImage is the image of the pods that copy into and out of a
	// claim; empty: DefaultHelperImage.
	HelperImage string
	// PullSecrets are image pull secrets every sandbox's pod names.
	PullSecrets []string
	// SandboxAPI is what a new sandbox is made as: APIPods (empty) a bare
	// pod, APIAgentSandbox an agent-sandbox Sandbox (agentsandbox.go).
	SandboxAPI string
	// Version is the provider's version, for the user agent.
	Version string
	// UserAgent replaces the provider's user agent; the cluster records it
	// as the manager of a write that names none. Every write of the
	// provider's own names its manager; the tests' client, whose writes
	// stand for someone else's, sets this.
	UserAgent string
	// TarOnly has helper pods fill and read claims with the helper image's
	// tar alone, as on a node none of the provider's programs runs on: for
	// the differential test that holds that path to what the provider
	// checked (package archivetest).
	TarOnly bool
}

// The values of Config.SandboxAPI.
const (
	APIPods         = "pods"
	APIAgentSandbox = "agent-sandbox"
)

// Client runs sandboxes on one cluster, in one namespace.
type Client struct {
	rest    *rest.Config
	core    *rest.RESTClient
	network *rest.RESTClient
	node    *rest.RESTClient
	// agents is the client of agent-sandbox's API group, and agentSandbox
	// whether new sandboxes are its Sandboxes (agentsandbox.go).
	agents       *rest.RESTClient
	agentSandbox bool
	// extensions is the client of agent-sandbox's extensions, whose
	// templates and warm pools a pool is (pools.go).
	extensions *rest.RESTClient
	params     runtime.ParameterCodec
	namespace  string
	class      string
	// helperImage is the image of the pods that copy into and out of
	// claims (archive.go).
	helperImage string
	tarOnly     bool // Config.TarOnly
	server      string
	context     string

	helperMu sync.Mutex
	helper   helperCheck // helperimage.go
	// helperGzip is whether the helper image's tar reads gzip: 0 not yet
	// known, 1 it does, 2 it does not (gzip.go).
	helperGzip atomic.Int32

	factsMu sync.Mutex
	facts   *engine.Facts

	// registries are the provider's registry credentials, and
	// pullSecrets the image pull secrets every pod names (registries.go).
	registries  engine.Registries
	pullSecrets []string
}

var (
	_ engine.Engine = (*Client)(nil)
	// A claim is read and filled through a helper pod (archive.go).
	_ engine.VolumeArchiver = (*Client)(nil)
	_ engine.IsolatingAll   = (*Client)(nil)
	// Its helper's runtime keeps no time after 2262 (archive.go).
	_ engine.RestoreRefuser = (*Client)(nil)
	// Warm pools of agent-sandbox (pools.go).
	_ engine.Pools = (*Client)(nil)
	// What a cluster does not do, or not yet through this provider, it
	// does not implement: no engine.Unpauser, Renamer, LimitUpdater,
	// RestartUpdater (a pod is fixed once made), FileCopier (files are
	// mounted from the sandbox's Secret), FileReader (only a program in
	// the pod could read them), HostPaths or Images (the nodes' and
	// registries' business).
)

// client-go reports what it cannot hand back (a stream's connection closed
// under it, for example) through klog, to the process's standard error,
// which Terraform logs. The backend returns every error it can to its
// caller, with what was being done: the rest is noise, and silenced.
func init() { klog.SetLogger(logr.Discard()) }

// scheme knows the API types the backend uses, and nothing else.
var scheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, networkingv1.AddToScheme, nodev1.AddToScheme} {
		if err := add(s); err != nil {
			panic(err) // the API's own types always register
		}
	}
	metav1.AddToGroupVersion(s, schema.GroupVersion{Version: "v1"})
	return s
}()

// New builds a client for the cluster cfg names. It reads the kubeconfig
// but does not contact the cluster: call Ping for that.
func New(cfg Config) (*Client, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if cfg.ConfigPath != "" {
		rules.ExplicitPath = cfg.ConfigPath
	}
	loader := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules,
		&clientcmd.ConfigOverrides{CurrentContext: cfg.Context})
	rc, err := loader.ClientConfig()
	if clientcmd.IsEmptyConfig(err) {
		// client-go's own words name KUBERNETES_MASTER, which the provider
		// does not read.
		return nil, &NoKubeconfigError{Source: describeSource(cfg)}
	}
	if err != nil {
		return nil, fmt.Errorf("reading the kubeconfig (%s): %w", describeSource(cfg), err)
	}
	if rc.Insecure {
		return nil, fmt.Errorf("the kubeconfig (%s) sets insecure-skip-tls-verify for %s: the provider always "+
			"verifies the cluster's certificate. Give the cluster's CA instead (certificate-authority or "+
			"certificate-authority-data)", describeSource(cfg), rc.Host)
	}
	c := &Client{rest: rc, namespace: cfg.Namespace, class: cfg.RuntimeClass, server: rc.Host, context: cfg.Context,
		helperImage: cfg.HelperImage, pullSecrets: cfg.PullSecrets, agentSandbox: cfg.SandboxAPI == APIAgentSandbox,
		tarOnly: cfg.TarOnly}
	if c.helperImage == "" {
		c.helperImage = DefaultHelperImage
	}
	if c.namespace == "" {
		if c.namespace, _, err = loader.Namespace(); err != nil || c.namespace == "" {
			c.namespace = metav1.NamespaceDefault
		}
	}
	if c.class == "" {
		c.class = DefaultRuntimeClass
	}
	rc.UserAgent = userAgent(cfg.Version)
	if cfg.UserAgent != "" {
		rc.UserAgent = cfg.UserAgent
	}
	// A plan of hundreds of sandboxes reads each one: client-go's default
	// of 5 requests a second would take minutes. The cluster's own
	// priority and fairness still protects it.
	rc.QPS, rc.Burst = 100, 200
	codecs := serializer.NewCodecFactory(scheme)
	c.params = runtime.NewParameterCodec(scheme)
	for _, g := range []struct {
		client **rest.RESTClient
		gv     schema.GroupVersion
		path   string
	}{
		{&c.core, corev1.SchemeGroupVersion, "/api"},
		{&c.network, networkingv1.SchemeGroupVersion, "/apis"},
		{&c.node, nodev1.SchemeGroupVersion, "/apis"},
		{&c.agents, schema.GroupVersion{Group: agentsGroup, Version: agentsVersion}, "/apis"},
		{&c.extensions, schema.GroupVersion{Group: extensionsGroup, Version: agentsVersion}, "/apis"},
	} {
		gc := rest.CopyConfig(rc)
		gc.GroupVersion, gc.APIPath, gc.NegotiatedSerializer = &g.gv, g.path, codecs.WithoutConversion()
		if *g.client, err = rest.RESTClientFor(gc); err != nil {
			return nil, fmt.Errorf("the cluster at %s: %w", rc.Host, err)
		}
	}
	return c, nil
}

// NoKubeconfigError is a provider block with a kubernetes argument on a
// machine where no kubeconfig is found, and that does not run in a pod.
type NoKubeconfigError struct{ Source string }

func (e *NoKubeconfigError) Error() string {
	return fmt.Sprintf("no kubeconfig was found (%s), and the provider does not run in a pod", e.Source)
}

func describeSource(cfg Config) string {
	where := "KUBECONFIG or ~/.kube/config"
	if cfg.ConfigPath != "" {
		where = cfg.ConfigPath
	}
	if cfg.Context != "" {
		where += ", context " + cfg.Context
	}
	return where
}

func userAgent(version string) string {
	if version == "" {
		return fieldManager
	}
	return fieldManager + "/" + version
}

// API is the REST clients underneath, of the core and networking API
// groups, for tests that change the cluster behind the provider's back.
// The provider itself never uses them outside this package.
func (c *Client) API() (core, networking rest.Interface) { return c.core, c.network }

// AgentsAPI is the REST client of agent-sandbox's API group, and
// ExtensionsAPI of its extensions, for the same tests.
func (c *Client) AgentsAPI() rest.Interface { return c.agents }

// ExtensionsAPI: see AgentsAPI.
func (c *Client) ExtensionsAPI() rest.Interface { return c.extensions }

// Endpoint is the API server's address.
func (c *Client) Endpoint() string { return c.server }

// Namespace is where the client's sandboxes are.
func (c *Client) Namespace() string { return c.namespace }

// RuntimeClass is the RuntimeClass the client's sandboxes run in.
func (c *Client) RuntimeClass() string { return c.class }

// Where names the cluster in messages.
func (c *Client) Where() string {
	return fmt.Sprintf("the Kubernetes cluster at %s (namespace %s)", c.server, c.namespace)
}

// IsolatesEverySandbox: every pod runs in the RuntimeClass, beside a
// deny-all NetworkPolicy, whatever its network_mode.
func (c *Client) IsolatesEverySandbox() {}

// Close releases nothing: the REST clients share Go's connection pool.
func (c *Client) Close() error { return nil }

// Ping checks that the API server answers and that the RuntimeClass
// sandboxes run in exists.
func (c *Client) Ping(ctx context.Context) error {
	if err := c.call(ctx, "a request for its version", engine.QuickCallTimeout, func(ctx context.Context) error {
		return c.core.Get().AbsPath("/version").Do(ctx).Error()
	}); err != nil {
		return c.unreachable(err)
	}
	if _, err := c.Facts(ctx); err != nil {
		return err
	}
	if !c.agentSandbox {
		return nil
	}
	err := c.call(ctx, "the request for agent-sandbox's API", engine.QuickCallTimeout, func(ctx context.Context) error {
		return c.agents.Get().AbsPath("/apis", agentsGroup, agentsVersion).Do(ctx).Error()
	})
	if engine.IsNotFound(err) {
		return c.errNotAgentSandbox()
	}
	return err
}

// unreachable explains a failed first call.
func (c *Client) unreachable(err error) error {
	return fmt.Errorf("the Kubernetes API server at %s did not answer: %w", c.server, err)
}

// Facts says what the cluster's sandboxes can have: the RuntimeClass and
// its handler as their runtime, and which limits a pod can carry.
func (c *Client) Facts(ctx context.Context) (engine.Facts, error) {
	c.factsMu.Lock()
	defer c.factsMu.Unlock()
	if c.facts != nil {
		return *c.facts, nil
	}
	var class nodev1.RuntimeClass
	err := c.call(ctx, "the request for a RuntimeClass", engine.QuickCallTimeout, func(ctx context.Context) error {
		return c.node.Get().Resource("runtimeclasses").Name(c.class).Do(ctx).Into(&class)
	})
	if err != nil {
		return engine.Facts{}, classError(c, err)
	}
	f := engine.Facts{
		Runtimes:       map[string]string{c.class: class.Handler, class.Handler: class.Handler},
		DefaultRuntime: c.class,
		Enforces:       enforcement,
		Seccomp:        engine.Seccomp{Enabled: true},
	}
	c.facts = &f
	return f, nil
}

// enforcement is what a pod spec can limit: memory and CPU, as the
// container's resource limits. It has no swap limit, no process limit of
// its own (the kubelet's podPidsLimit is the node's) and no ulimits.
var enforcement = engine.Enforcement{
	Memory: true, CPU: true,
	Why: "a pod carries only memory and CPU limits: swap and the number of processes are set for the whole node " +
		"(the kubelet's podPidsLimit)",
	Fix:        "set the node's limit in the kubelet's configuration, or place this sandbox on a Docker engine",
	UlimitsWhy: "a pod spec has no ulimits",
	UlimitsFix: "set them in the image's entrypoint, or place this sandbox on a Docker engine",
}

// classError explains a RuntimeClass that cannot be read.
func classError(c *Client, err error) error {
	switch {
	case engine.IsNotFound(err):
		return fmt.Errorf("the cluster at %s has no RuntimeClass %q, which sandboxes run in: it must name a "+
			"runtime whose pods have no network (gVisor with --network=none, for example). Create it, or name "+
			"another with the provider's kubernetes.runtime_class", c.server, c.class)
	case isForbidden(err):
		return fmt.Errorf("the cluster at %s does not let this user read RuntimeClass %q (%v): grant it get on "+
			"runtimeclasses (node.k8s.io)", c.server, c.class, err)
	}
	return fmt.Errorf("reading RuntimeClass %q from the cluster at %s: %w", c.class, c.server, err)
}

// ByHand gives kubectl's commands for the client's namespace.
func (c *Client) ByHand() engine.HandCommands { return kubectl{c} }

type kubectl struct{ c *Client }

func (k kubectl) prefix() string {
	p := "kubectl"
	if k.c.context != "" {
		p += " --context " + k.c.context
	}
	return p + " -n " + k.c.namespace
}

func (k kubectl) Remove(id string) string {
	return fmt.Sprintf("%s delete pod %s", k.prefix(), podName(id))
}

func (k kubectl) RemoveLabelled(key, value string) string {
	return fmt.Sprintf("%s delete pod -l %s=%s", k.prefix(), key, value)
}

func (k kubectl) Logs(id string) string { return fmt.Sprintf("%s logs %s", k.prefix(), podName(id)) }

func (k kubectl) RemoveVolume(name string) string {
	return fmt.Sprintf("%s delete pvc %s", k.prefix(), name)
}

func (k kubectl) RemoveHelpers(_, token string) string {
	return k.RemoveLabelled(engine.LabelCreateToken, token)
}
