package provider_test

import (
	"net"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/provider"
)

var protoV6ProviderFactories = map[string]func() (tfprotov6.ProviderServer, error){
	"sandbox": providerserver.NewProtocol6WithError(provider.New("test")()),
}

func TestAccProvider_unreachableEngineNamesEndpoint(t *testing.T) {
	// An address that takes the connection and never answers, as a
	// black-holed or frozen engine does.
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	held := make(chan net.Conn, 64)
	t.Cleanup(func() {
		_ = silent.Close()
		for len(held) > 0 {
			_ = (<-held).Close()
		}
	})
	go func() {
		for {
			conn, err := silent.Accept()
			if err != nil {
				return
			}
			select {
			case held <- conn:
			default:
				_ = conn.Close()
			}
		}
	}()
	for name, host := range map[string]string{
		"missing socket": "unix:///nonexistent/sandbox-test/docker.sock",
		"closed port":    "tcp://127.0.0.1:1",
		"silent address": "tcp://" + silent.Addr().String(),
	} {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			resource.ParallelTest(t, resource.TestCase{
				ProtoV6ProviderFactories: protoV6ProviderFactories,
				Steps: []resource.TestStep{
					{
						Config: `
provider "sandbox" {
  host = "` + host + `"
}

resource "sandbox_container" "test" {
  image        = "tfsandbox/busybox:latest"
  network_mode = "none"
}`,
						ExpectError: regexp.MustCompile(`(?s)Cannot reach the Docker engine.*` +
							regexp.QuoteMeta(host) + `.*the engine is running`),
					},
				},
			})
			// Configure pings for at most 15 s; the plan around it
			// takes a few more.
			if elapsed := time.Since(start); elapsed > time.Minute {
				t.Errorf("failing took %s", elapsed)
			}
		})
	}
}

func TestAccProvider_invalidHost(t *testing.T) {
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: `
provider "sandbox" {
  host = "not a url"
}

resource "sandbox_container" "test" {
  image = "tfsandbox/busybox:latest"
}`,
				ExpectError: regexp.MustCompile(`Invalid engine connection settings`),
			},
		},
	})
}

// TestAccProvider_clusterWithoutKubeconfig: a provider block for a cluster
// on a machine with no kubeconfig (examples/resume and examples/kubernetes
// on a Docker-only machine, whose cluster sandboxes have count = 0) fails
// once, naming kubernetes.config_path and the fix, never in client-go's
// words (KUBERNETES_MASTER, which the provider does not read).
func TestAccProvider_clusterWithoutKubeconfig(t *testing.T) {
	cli := acctest.NewCLI(t, `
provider "sandbox" {
  kubernetes = {}
}

resource "sandbox_container" "cluster" {
  count        = 0
  name         = "never-made"
  image        = "none"
  network_mode = "none"
}
`)
	home := t.TempDir()
	env := []string{"HOME=" + home}
	for _, kv := range cli.Env {
		if k, _, _ := strings.Cut(kv, "="); k != "HOME" && k != "KUBECONFIG" && !strings.HasPrefix(k, "KUBERNETES_") {
			env = append(env, kv)
		}
	}
	cli.Env = env
	out, err := cli.Try("plan", "-no-color", "-input=false")
	if err == nil {
		t.Fatalf("the plan passed with no kubeconfig:\n%s", out)
	}
	if n := strings.Count(out, "No kubeconfig for the cluster"); n != 1 {
		t.Errorf("%d errors about the kubeconfig, want 1:\n%s", n, out)
	}
	for _, want := range []string{"kubernetes.config_path", "KUBECONFIG or ~/.kube/config",
		"remove the provider block's kubernetes argument"} {
		if !acctest.Phrase(want).MatchString(out) {
			t.Errorf("the error does not say %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "KUBERNETES_MASTER") {
		t.Errorf("the error speaks client-go's words:\n%s", out)
	}
}
