package provider_test

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/provider"
)

var protoV6ProviderFactories = map[string]func() (tfprotov6.ProviderServer, error){
	"sandbox": providerserver.NewProtocol6WithError(provider.New("test")()),
}

func TestAccProvider_unreachableEngineNamesEndpoint(t *testing.T) {
	for name, host := range map[string]string{
		"missing socket": "unix:///nonexistent/sandbox-test/docker.sock",
		"closed port":    "tcp://127.0.0.1:1",
	} {
		t.Run(name, func(t *testing.T) {
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
