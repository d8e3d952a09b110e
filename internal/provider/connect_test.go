package provider_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/client"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine/docker"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/isolation"
)

// withoutDockerEnv makes the provider block the only source of connection
// settings, whichever engine the suite runs against.
func withoutDockerEnv(t *testing.T) {
	for _, key := range []string{client.EnvOverrideHost, client.EnvTLSVerify, client.EnvOverrideCertPath, "DOCKER_CONTEXT"} {
		t.Setenv(key, "")
	}
	t.Setenv("DOCKER_CONFIG", t.TempDir())
}

func sandboxConfig(provider, name string) string {
	return fmt.Sprintf(`
provider "sandbox" {
%s
}

resource "sandbox_container" "test" {
  name         = %q
  image        = %q
  network_mode = "none"
}
`, provider, name, acctest.TestImage)
}

// isolatedOn checks, on the given engine, that the sandbox in state exists
// there and is isolated.
func isolatedOn(c *docker.Client) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		rs, ok := s.RootModule().Resources["sandbox_container.test"]
		if !ok {
			return fmt.Errorf("sandbox_container.test is not in state")
		}
		got, err := c.InspectContainer(context.Background(), rs.Primary.ID)
		if err != nil {
			return fmt.Errorf("the sandbox is not on %s: %w", c.Endpoint(), err)
		}
		if v := isolation.Assess(got.Network); !v.Isolated {
			return fmt.Errorf("the sandbox on %s is not isolated: %s", c.Endpoint(), v.Reason)
		}
		return nil
	}
}

func TestAccProvider_tlsEngine(t *testing.T) {
	acctest.RequireAcc(t)
	withoutDockerEnv(t)
	tlsEngine := acctest.TLS(t)
	name := tlsEngine.Name(t)
	pemFile := func(file string) string { return strconv.Quote(filepath.Join(tlsEngine.CertPath, file)) }
	inline := fmt.Sprintf("  host = %q\n  ca_pem = file(%s)\n  cert_pem = file(%s)\n  key_pem = file(%s)",
		tlsEngine.Host, pemFile("ca.pem"), pemFile("cert.pem"), pemFile("key.pem"))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy: func(*terraform.State) error {
			acctest.ExpectNoneOn(t, tlsEngine.Engine(t), name, "destroy")
			return nil
		},
		Steps: []resource.TestStep{
			{
				Config: sandboxConfig(fmt.Sprintf("  host = %q\n  cert_path = %q", tlsEngine.Host, tlsEngine.CertPath), name),
				Check:  isolatedOn(tlsEngine.Engine(t)),
			},
			{
				// The same material given inline plans nothing.
				Config:   sandboxConfig(inline, name),
				PlanOnly: true,
			},
			{
				// So does a docker CLI context made with `docker context
				// create`, by name...
				PreConfig: func() {
					cmd := exec.Command("docker", "context", "create", "tls-engine", "--docker", fmt.Sprintf(
						"host=%s,ca=%s,cert=%s,key=%s", tlsEngine.Host, filepath.Join(tlsEngine.CertPath, "ca.pem"),
						filepath.Join(tlsEngine.CertPath, "cert.pem"), filepath.Join(tlsEngine.CertPath, "key.pem")))
					if out, err := cmd.CombinedOutput(); err != nil {
						t.Fatalf("docker context create: %v\n%s", err, out)
					}
				},
				Config:   sandboxConfig(`  context = "tls-engine"`, name),
				PlanOnly: true,
			},
			{
				// ...and as DOCKER_CONTEXT, with no provider settings.
				PreConfig: func() { t.Setenv("DOCKER_CONTEXT", "tls-engine") },
				Config:    sandboxConfig("", name),
				PlanOnly:  true,
			},
		},
	})
}

// otherCA returns the PEM of a CA that signed nothing the engines know.
func otherCA(t *testing.T) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "another CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true,
		BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}

func TestAccProvider_tlsFailuresSayWhichAndCreateNothing(t *testing.T) {
	acctest.RequireAcc(t)
	withoutDockerEnv(t)
	tlsEngine := acctest.TLS(t)
	name := tlsEngine.Name(t)
	cert, key := strconv.Quote(tlsEngine.PEM(t, "cert.pem")), strconv.Quote(tlsEngine.PEM(t, "key.pem"))
	for _, c := range []struct {
		name, provider, want string
	}{
		{"engine certificate from another CA",
			fmt.Sprintf("  host = %q\n  ca_pem = %q\n  cert_pem = %s\n  key_pem = %s", tlsEngine.Host, otherCA(t), cert, key),
			"is not signed by a CA the provider trusts"},
		{"no client certificate",
			fmt.Sprintf("  host = %q\n  ca_pem = %q", tlsEngine.Host, tlsEngine.PEM(t, "ca.pem")),
			"requires a client certificate and the provider has none"},
		{"plain HTTP to the TLS engine",
			fmt.Sprintf("  host = %q", tlsEngine.Host),
			"speaks TLS and the provider was given no TLS settings"},
		{"host name the certificate does not name",
			fmt.Sprintf("  host = %q\n  cert_path = %q", strings.Replace(tlsEngine.Host, "127.0.0.1", "localhost", 1), tlsEngine.CertPath),
			"is not valid for the host name"},
	} {
		t.Run(c.name, func(t *testing.T) {
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config:      sandboxConfig(c.provider, name),
					ExpectError: acctest.Phrase("Cannot reach the Docker engine"),
				}, {
					Config:      sandboxConfig(c.provider, name),
					ExpectError: acctest.Phrase(c.want),
				}},
			})
			acctest.ExpectNoneOn(t, tlsEngine.Engine(t), name, c.name)
		})
	}
}

func TestAccProvider_sshHost(t *testing.T) {
	acctest.RequireAcc(t)
	withoutDockerEnv(t)
	sshHost := acctest.SSH(t)
	remote := sshHost.Engine(t)
	name := acctest.Name(t)
	t.Cleanup(func() { _ = remote.RemoveContainer(context.Background(), name) })
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: sandboxConfig(fmt.Sprintf("  host = %q\n  ssh_opts = %s", sshHost.Host, sshHost.Opts("")), name),
			Check:  isolatedOn(remote),
		}},
	})
}

func TestAccProvider_sshFailuresSayWhichAndCreateNothing(t *testing.T) {
	acctest.RequireAcc(t)
	withoutDockerEnv(t)
	sshHost := acctest.SSH(t)
	name := acctest.Name(t)
	dir := t.TempDir()
	unknown := filepath.Join(dir, "empty_known_hosts")
	changed := filepath.Join(dir, "changed_known_hosts")
	// The client's own key stands in for a host key that changed.
	clientKey, err := os.ReadFile(filepath.Join(sshHost.Dir, "client_key.pub"))
	if err != nil {
		t.Fatal(err)
	}
	fields := strings.Fields(string(clientKey))
	acctest.Write(t, unknown, "")
	acctest.Write(t, changed, sshHost.KnownHostsLine(t, fields[0]+" "+fields[1]))
	for _, c := range []struct {
		name, host, knownHosts, want string
	}{
		{"unknown host key", sshHost.Host, unknown, "never turns host key checking off"},
		{"changed host key", sshHost.Host, changed, "differs from the one recorded there"},
		{"nothing listens", "ssh://root@127.0.0.1:1", "", "Connection refused"},
	} {
		t.Run(c.name, func(t *testing.T) {
			provider := fmt.Sprintf("  host = %q\n  ssh_opts = %s", c.host, sshHost.Opts(c.knownHosts))
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config:      sandboxConfig(provider, name),
					ExpectError: acctest.Phrase("ssh could not open a tunnel to the engine at " + c.host),
				}, {
					Config:      sandboxConfig(provider, name),
					ExpectError: acctest.Phrase(c.want),
				}},
			})
			acctest.ExpectNoneOn(t, sshHost.Engine(t), name, c.name)
		})
	}
}
