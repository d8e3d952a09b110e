package containerresource_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/isolation"
)

// The Kubernetes backend, against the test cluster (acctest's cluster kit;
// they run in the cluster pass).

// clusterConfig is one sandbox_container "test" on the cluster, in the
// provider's runtime class class ("" for the default).
func clusterConfig(t *testing.T, class, name, extra string) string {
	return acctest.ClusterProvider(t, class) + fmt.Sprintf(`
resource "sandbox_container" "test" {
  name         = %q
  image        = %q
  network_mode = "none"
%s
}
`, name, acctest.TestImage, extra)
}

// TestAccCluster_isolationProof proves from inside a sandbox, in each of
// the test cluster's network-less runtime classes, that it reaches none of
// the places an ordinary pod of the cluster reaches: another pod, a DNS
// server, the node, the API server and a host off the node, nor does
// anything reach it.
func TestAccCluster_isolationProof(t *testing.T) {
	acctest.RequireCluster(t)
	base := acctest.ClusterName(t)
	control := acctest.RunPod(t, acctest.ClusterPod{Name: base + "-control", Command: []string{"sleep", "3600"}})
	destinations := []acctest.Destination{
		acctest.ListenerPod(t, base+"-pod", "another pod", 8080),
		acctest.ListenerPod(t, base+"-dns", "a DNS server (port 53)", 53),
		acctest.NodeListener(t),
		acctest.APIServerOnNode(t),
		acctest.OffNodeHost(t),
	}
	ctx := context.Background()
	for _, d := range destinations {
		if ok, out := acctest.Reaches(ctx, t, control.Name, d); !ok {
			t.Fatalf("the control pod does not reach %s at %s (%s): the test would prove nothing", d.What, d.Addr, out)
		}
	}
	for _, class := range acctest.IsolatedClasses {
		t.Run(class, func(t *testing.T) {
			name := base + "-" + class
			acctest.ClusterTest(t, []resource.TestStep{{
				// The sandbox listens, so that nothing reaching it is
				// missed for want of a listener.
				Config: clusterConfig(t, class, name, `  command = ["nc", "-ll", "-p", "8080", "-e", "/bin/echo", "ok"]`),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, attr("network_mode"), knownvalue.StringExact("none")),
					acctest.ClusterCheck(t, addr, func(ctx context.Context, c engine.Sandbox, pod *corev1.Pod) error {
						for _, d := range destinations {
							if ok, out := acctest.Reaches(ctx, t, c.ID, d); ok {
								return fmt.Errorf("the sandbox reaches %s at %s: %s", d.What, d.Addr, out)
							}
						}
						inbound := acctest.Destination{What: "the sandbox", Addr: pod.Status.PodIP + ":8080"}
						if pod.Status.PodIP != "" {
							if ok, out := acctest.Reaches(ctx, t, control.Name, inbound); ok {
								return fmt.Errorf("the control pod reaches the sandbox at %s: %s", inbound.Addr, out)
							}
						}
						if class == "gvisor" {
							// No network stack at all; runc's pods in class
							// none have an interface that leads nowhere.
							return acctest.OnlyLoopbackInPod(ctx, t, c.ID)
						}
						return nil
					}),
				},
			}})
		})
	}
}

// TestAccCluster_drift changes a sandbox's pod and its NetworkPolicy behind
// Terraform's back in every way that weakens its isolation, and checks
// that each is seen at refresh, planned as a replacement that says why,
// and repaired by apply.
func TestAccCluster_drift(t *testing.T) {
	name := acctest.ClusterName(t)
	config := clusterConfig(t, "", name, "")
	isolated := []statecheck.StateCheck{
		statecheck.ExpectKnownValue(addr, attr("network_mode"), knownvalue.StringExact("none")),
		acctest.ClusterIsolated(t, addr),
	}
	replaced := func(mode string) resource.ConfigPlanChecks {
		return resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
			plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate),
			acctest.ExpectPriorValue{Address: addr, Attribute: "network_mode", Want: mode},
		}}
	}
	policy := func(change func(p *networkingv1.NetworkPolicy)) func() {
		return acctest.ClusterOutOfBand(t, func(ctx context.Context) error {
			return acctest.ChangePolicy(ctx, t, name, change)
		})
	}
	acctest.ClusterTest(t, []resource.TestStep{
		{Config: config, ConfigStateChecks: isolated},
		{Config: config, PlanOnly: true},
		{
			PreConfig:         policy(nil),
			Config:            config,
			ConfigPlanChecks:  replaced(isolation.PodModeNoPolicy),
			ConfigStateChecks: isolated,
		},
		{
			PreConfig:         policy(acctest.AllowAllEgress),
			Config:            config,
			ConfigPlanChecks:  replaced(isolation.PodModeLoosePolicy),
			ConfigStateChecks: isolated,
		},
		{
			PreConfig:         policy(acctest.SelectNothing),
			Config:            config,
			ConfigPlanChecks:  replaced(isolation.PodModeLoosePolicy),
			ConfigStateChecks: isolated,
		},
		{
			PreConfig: acctest.ClusterOutOfBand(t, func(ctx context.Context) error {
				return acctest.AnnotatePod(ctx, t, name, "k8s.v1.cni.cncf.io/networks", "macvlan-conf")
			}),
			Config:            config,
			ConfigPlanChecks:  replaced(isolation.PodModeNetwork),
			ConfigStateChecks: isolated,
		},
		{
			// Deleted: the plan creates it again.
			PreConfig: acctest.ClusterOutOfBand(t, func(ctx context.Context) error {
				return acctest.DeletePod(ctx, t, name)
			}),
			Config: config,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(addr, plancheck.ResourceActionCreate),
			}},
			ConfigStateChecks: isolated,
		},
		{
			// Deleted and made again by someone else, with the name and
			// labels but another runtime class and security context: not
			// the sandbox. The plan creates it; apply refuses to take the
			// name from that pod, and says how to remove it.
			PreConfig: acctest.ClusterOutOfBand(t, func(ctx context.Context) error {
				return acctest.ReplacePod(ctx, t, name)
			}),
			Config: config,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(addr, plancheck.ResourceActionCreate),
			}},
			ExpectError: regexp.MustCompile(fmt.Sprintf(`(?s)already used by container\s+default/%s\s.*kubectl -n default delete pod %s`,
				name, name)),
		},
		{
			PreConfig: acctest.ClusterOutOfBand(t, func(ctx context.Context) error {
				return acctest.DeletePod(ctx, t, name)
			}),
			Config:            config,
			ConfigStateChecks: isolated,
		},
	})
}

// TestAccCluster_hardening maps every hardening attribute onto the pod and
// checks each from the cluster's data and from inside the sandbox, an
// empty second plan, and an import, in each network-less runtime class.
func TestAccCluster_hardening(t *testing.T) {
	base := acctest.ClusterName(t)
	for _, class := range acctest.IsolatedClasses {
		t.Run(class, func(t *testing.T) {
			secret := "token-" + acctest.RandString(16)
			config := clusterConfig(t, class, base+"-"+class, fmt.Sprintf(`
  user              = "1000:1000"
  cap_drop          = ["ALL"]
  read_only         = true
  memory            = 128
  cpus              = 0.5
  tmpfs             = { "/scratch" = "size=8m" }
  env               = { PLAIN = "visible" }
  env_wo            = { API_TOKEN = %q }
  env_wo_version    = 1
  labels            = { "team.example.com/owner" = "agents" }
  files = {
    "/etc/agent/task.txt" = { content = "the task\n" }
    "/opt/bin/run"        = { content = "#!/bin/sh\necho ran\n", mode = "0755" }
  }
`, secret))
			acctest.ClusterTest(t, []resource.TestStep{
				{
					Config: config,
					ConfigStateChecks: []statecheck.StateCheck{
						acctest.StateLacks{Secret: secret},
						acctest.ClusterCheck(t, addr, func(ctx context.Context, _ engine.Sandbox, pod *corev1.Pod) error {
							return hardenedPod(pod, secret)
						}),
						acctest.ClusterCheck(t, addr, func(ctx context.Context, c engine.Sandbox, _ *corev1.Pod) error {
							return hardenedInside(ctx, t, c.ID, secret, class == "gvisor")
						}),
					},
				},
				{Config: config, PlanOnly: true},
				{
					ResourceName:            addr,
					ImportState:             true,
					ImportStateVerify:       true,
					ImportStateVerifyIgnore: []string{"env_wo", "env_wo_version", "files"},
				},
			})
		})
	}
}

// hardenedPod checks the pod spec of TestAccCluster_hardening's sandbox.
func hardenedPod(pod *corev1.Pod, secret string) error {
	c := pod.Spec.Containers[0]
	sc := c.SecurityContext
	switch {
	case pod.Spec.AutomountServiceAccountToken == nil || *pod.Spec.AutomountServiceAccountToken:
		return fmt.Errorf("the pod mounts its service account's token")
	case sc == nil || sc.RunAsUser == nil || *sc.RunAsUser != 1000 || sc.RunAsGroup == nil || *sc.RunAsGroup != 1000:
		return fmt.Errorf("the container does not run as 1000:1000: %+v", sc)
	case sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation:
		return fmt.Errorf("the container may gain privileges")
	case sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem:
		return fmt.Errorf("the container's root is writable")
	case sc.Capabilities == nil || len(sc.Capabilities.Drop) != 1 || sc.Capabilities.Drop[0] != "ALL":
		return fmt.Errorf("the container keeps capabilities: %+v", sc.Capabilities)
	case sc.SeccompProfile == nil || sc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault:
		return fmt.Errorf("the container runs without the runtime's seccomp profile")
	case c.Resources.Limits.Memory().Value() != 128<<20 || c.Resources.Limits.Cpu().MilliValue() != 500:
		return fmt.Errorf("the container's limits are %v", c.Resources.Limits)
	}
	for _, e := range c.Env {
		if e.Value == secret || (e.Name == "API_TOKEN" && (e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil)) {
			return fmt.Errorf("the pod spec holds env_wo's value instead of a reference to the sandbox's Secret")
		}
	}
	return nil
}

// hardenedInside checks TestAccCluster_hardening's sandbox from inside.
// gVisor's /proc does not show no_new_privs (the pod spec, which the node's
// runtime applies, is checked by hardenedPod).
func hardenedInside(ctx context.Context, t *testing.T, id, secret string, gvisor bool) error {
	nnp := "grep NoNewPrivs /proc/self/status"
	if gvisor {
		nnp = "echo NoNewPrivs: 1"
	}
	for _, probe := range []struct{ cmd, want string }{
		{"id -u; id -g", "1000\n1000"},
		{"grep CapEff /proc/self/status", "0000000000000000"},
		{nnp, "1"},
		{"echo $PLAIN $API_TOKEN", "visible " + secret},
		{"touch /root-written 2>&1 || echo refused", "refused"},
		{"head -c 9000000 /dev/zero > /scratch/big 2>&1 || echo full", "full"},
		{"cat /etc/agent/task.txt; /opt/bin/run", "the task\nran"},
		{"stat -c '%a %u' /etc/agent/task.txt /opt/bin/run", "644 0\n755 0"},
		{"echo x > /etc/agent/task.txt 2>&1 || echo refused", "refused"},
	} {
		out, _, err := acctest.InPod(ctx, t, id, "sh", "-c", probe.cmd)
		if err != nil || !strings.Contains(out, probe.want) {
			return fmt.Errorf("inside, %q gave %q (%w), want %q", probe.cmd, out, err, probe.want)
		}
	}
	return nil
}

// TestAccCluster_refused checks that what a pod cannot carry is refused at
// plan, on its attribute, and that the resources that need a Docker engine
// say so.
func TestAccCluster_refused(t *testing.T) {
	name := acctest.ClusterName(t)
	var steps []resource.TestStep
	for _, c := range []struct{ extra, want string }{
		{`  ports = [{ internal = 80 }]`, "Remove ports"},
		{`  shm_size = 128`, "Remove shm_size"},
		{`  files = { "/etc/agent.conf" = { content_base64 = "` + strings.Repeat("AAAA", 340_000) + `" } }`,
			"more than the 1000000 a sandbox's files may have on a cluster"},
		{`  pids_limit = 64`, "cannot apply pids_limit"},
		{`  ulimits = { nofile = { soft = 64, hard = 64 } }`, "cannot apply ulimits"},
		{`  memory = 64
  memory_swap = 128`, "cannot apply memory_swap"},
		{`  user = "nobody"`, "names its user by number"},
		{`  state = "paused"`, "cannot be frozen"},
		{`  security_opts = ["apparmor=docker-default"]`, "carries only no-new-privileges"},
		{`  tmpfs = { "/tmp" = "size=8m,mode=1777" }`, "takes only size"},
		{`  runtime = "runc"`, "leave runtime unset"},
	} {
		steps = append(steps, resource.TestStep{
			Config:      clusterConfig(t, "", name, c.extra),
			PlanOnly:    true,
			ExpectError: acctest.Phrase(c.want),
		})
	}
	steps = append(steps, resource.TestStep{
		Config:      clusterConfig(t, "", "Upper_Case", ""),
		PlanOnly:    true,
		ExpectError: acctest.Phrase("takes lower-case letters"),
	}, resource.TestStep{
		Config: acctest.ClusterProvider(t, "") + `
resource "sandbox_image" "test" {
  name    = "x:1"
  context = "."
}`,
		PlanOnly:    true,
		ExpectError: acctest.Phrase("sandbox_image works on a Docker engine"),
	}, resource.TestStep{
		Config: clusterConfig(t, "", name, `  allow_host_paths = true
  mounts = { "/data" = { host_path = "/srv/data" } }`),
		PlanOnly:    true,
		ExpectError: acctest.Phrase("which node's path a pod would see"),
	})
	for _, c := range []struct{ attrs, want string }{
		{`name = "workspace"`, "set size_mb"},
		{`name = "Work_Space"
  size_mb = 16`, "names a persistent volume claim"},
		{`name = "workspace"
  size_mb = 16
  medium = "memory"`, "a claim is on disk"},
	} {
		steps = append(steps, resource.TestStep{
			Config:      acctest.ClusterProvider(t, "") + "resource \"sandbox_volume\" \"test\" {\n  " + c.attrs + "\n}",
			PlanOnly:    true,
			ExpectError: acctest.Phrase(c.want),
		})
	}
	// A restore or seeding with the default helper image, which no node
	// of the test cluster has and none can pull, is refused at plan,
	// naming the setting.
	source := t.TempDir()
	acctest.Write(t, filepath.Join(source, "notes.txt"), "kept\n")
	steps = append(steps, resource.TestStep{
		Config: acctest.ClusterProviderDefaultHelper(t) + fmt.Sprintf(`
resource "sandbox_volume" "test" {
  name    = "%s-seeded"
  size_mb = 16
  source  = %q
}`, name, source),
		PlanOnly: true,
		ExpectError: regexp.MustCompile(`(?s)Helper image needed on this cluster.*` +
			acctest.Phrase("none of the cluster's 1 nodes has it").String() + `.*Set\s+kubernetes\.helper_image`),
	})
	acctest.ClusterTest(t, steps)
}

// TestAccCluster_workspaceSurvivesReplacement: a sandbox_volume on the
// cluster is a persistent volume claim; what a sandbox writes into it
// survives the sandbox's replacement by a change and the deletion of its
// pod out of band; destroy removes the claim. A claim of the volume's name
// made by hand, with the provider's labels copied onto it, is neither
// adopted nor removed.
func TestAccCluster_workspaceSurvivesReplacement(t *testing.T) {
	name := acctest.ClusterName(t)
	addr := "sandbox_container.test"
	config := func(round string) string {
		return clusterConfig(t, "", name, fmt.Sprintf(`  env    = { ROUND = %q }
  mounts = { "/workspace" = { volume = sandbox_volume.work.name } }`, round)) + fmt.Sprintf(`
resource "sandbox_volume" "work" {
  name    = "%s-work"
  size_mb = 16
}
`, name)
	}
	write := acctest.ClusterCheck(t, addr, func(ctx context.Context, c engine.Sandbox, pod *corev1.Pod) error {
		if err := mountsClaim(pod, name+"-work"); err != nil {
			return err
		}
		out, code, err := acctest.InPod(ctx, t, c.ID, "sh", "-c", "echo kept >/workspace/note && cat /workspace/note")
		if err != nil || code != 0 || strings.TrimSpace(out) != "kept" {
			return fmt.Errorf("writing into the workspace: exit %d, %q, %w", code, out, err)
		}
		return nil
	})
	kept := acctest.ClusterCheck(t, addr, func(ctx context.Context, c engine.Sandbox, pod *corev1.Pod) error {
		if err := mountsClaim(pod, name+"-work"); err != nil {
			return err
		}
		out, code, err := acctest.InPod(ctx, t, c.ID, "cat", "/workspace/note")
		if err != nil || code != 0 || strings.TrimSpace(out) != "kept" {
			return fmt.Errorf("the workspace lost what the replaced sandbox wrote: exit %d, %q, %w", code, out, err)
		}
		return nil
	})
	copied := name + "-copy"
	acctest.ClusterTest(t, []resource.TestStep{{
		Config:            config("1"),
		ConfigStateChecks: []statecheck.StateCheck{write},
	}, {
		Config: config("2"),
		ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
			plancheck.ExpectResourceAction(addr, plancheck.ResourceActionReplace),
			plancheck.ExpectResourceAction("sandbox_volume.work", plancheck.ResourceActionNoop),
		}},
		ConfigStateChecks: []statecheck.StateCheck{kept},
	}, {
		PreConfig: acctest.ClusterOutOfBand(t, func(ctx context.Context) error {
			return acctest.DeletePod(ctx, t, name)
		}),
		Config:            config("2"),
		ConfigStateChecks: []statecheck.StateCheck{kept},
	}, {
		PreConfig: acctest.ClusterOutOfBand(t, func(ctx context.Context) error {
			return acctest.HandMadeClaim(ctx, t, copied, map[string]string{
				engine.LabelManagedBy: engine.ManagedByValue, engine.LabelResourceType: "sandbox_volume",
				engine.LabelCreateToken: "copied",
			})
		}),
		Config: config("2") + fmt.Sprintf(`
resource "sandbox_volume" "copy" {
  name    = %q
  size_mb = 16
}
`, copied),
		ExpectError: regexp.MustCompile(acctest.Phrase("It was not made by this provider").String() +
			`.*kubectl\s.*delete\s+pvc\s+` + regexp.QuoteMeta(copied)),
	}, {
		Config: config("2"),
		Check: func(*terraform.State) error {
			if _, err := acctest.Cluster(t).InspectVolume(context.Background(), copied); err != nil {
				return fmt.Errorf("the hand-made claim %s is gone: %w", copied, err)
			}
			return nil
		},
	}, {
		// The provider's claim imports as it was made; the hand-made one
		// with copied labels does not.
		Config:       config("2"),
		ResourceName: "sandbox_volume.work", ImportState: true, ImportStateId: name + "-work", ImportStateVerify: true,
	}, {
		Config: config("2") + fmt.Sprintf(`
resource "sandbox_volume" "copy" {
  name    = %q
  size_mb = 16
}
`, copied),
		ResourceName: "sandbox_volume.copy", ImportState: true, ImportStateId: copied,
		ExpectError: acctest.Phrase("Volume not made by this provider"),
	}, {
		// Deleted out of band while the sandbox mounts it, the claim stays,
		// being removed: the apply says so, and what to replace.
		PreConfig: acctest.ClusterOutOfBand(t, func(ctx context.Context) error {
			return acctest.DeleteClaim(ctx, t, name+"-work")
		}),
		Config:      config("2"),
		ExpectError: regexp.MustCompile(`(?s)is being removed.*` + name + `.*-replace=ADDRESS`),
	}, {
		Config: config("2"),
		ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
			plancheck.ExpectResourceAction("sandbox_volume.work", plancheck.ResourceActionCreate),
		}},
		ExpectError: regexp.MustCompile(`is being removed`),
	}})
}

// mountsClaim checks that the sandbox's pod mounts the claim at
// /workspace.
func mountsClaim(pod *corev1.Pod, claim string) error {
	for _, v := range pod.Spec.Volumes {
		if v.PersistentVolumeClaim != nil && v.PersistentVolumeClaim.ClaimName == claim {
			return nil
		}
	}
	return fmt.Errorf("pod %s mounts no claim %s: %+v", pod.Name, claim, pod.Spec.Volumes)
}

// Applies of 10 sandboxes on the cluster, each interrupted by one Ctrl-C at
// a random moment, 5 times in a row: after each, every pod the cluster
// holds is in the state, and the provider does not outlive terraform (the
// Docker engines' passes run the same with 30 sandboxes, 20 times).
func TestAccCluster_interruptsNeverLeak(t *testing.T) {
	const count, trials = 10, 5
	acctest.RequireCluster(t)
	seed := uint64(time.Now().UnixNano())
	t.Logf("interrupt moments from seed %d", seed)
	random := rand.New(rand.NewPCG(seed, seed))
	name := acctest.ClusterName(t)
	tf := acctest.NewCLI(t, acctest.ClusterProvider(t, "none")+fmt.Sprintf(`
resource "sandbox_container" "test" {
  count        = %d
  name         = "%s-${count.index}"
  image        = %q
  network_mode = "none"
}
`, count, name, acctest.TestImage))
	t.Cleanup(func() { tf.Run("destroy", "-auto-approve") })
	// The moments span the creates of an uninterrupted apply, as on the
	// Docker engines (createsSpan). Pods start together, so the applies
	// make 3 at a time, whose creates end one wave after another: a
	// Ctrl-C finds some sandboxes made and others under way.
	const parallelism = "-parallelism=3"
	span := createsSpan(t, tf, parallelism)
	t.Logf("an apply of %d creates for %s after its first", count, span.Round(time.Millisecond))
	interrupted := 0
	for attempt := 1; interrupted < trials; attempt++ {
		if attempt > 2*trials {
			t.Fatalf("only %d of %d applies were still running when the Ctrl-C came", interrupted, attempt-1)
		}
		apply := tf.Start("apply", "-auto-approve", parallelism)
		apply.WaitFor(t, "Creating...", time.Minute)
		after := time.Duration(random.Int64N(int64(span)))
		time.Sleep(after)
		if err := apply.Cmd.Process.Signal(os.Interrupt); err == nil {
			interrupted++
		}
		if out, err := apply.Wait(2 * time.Minute); err != nil && apply.Cmd.ProcessState == nil {
			t.Fatalf("attempt %d: the apply did not end after one Ctrl-C: %v\n%s", attempt, err, out)
		}
		acctest.WaitForProviderExit(t, time.Minute)
		ids := tf.ExpectOnlyStatePods(name)
		t.Logf("attempt %d: Ctrl-C %s after the first create: %d of %d sandboxes made, all in the state",
			attempt, after.Round(time.Millisecond), len(ids), count)
		tf.Run("destroy", "-auto-approve")
		if left := tf.ExpectOnlyStatePods(name); len(left) > 0 {
			t.Fatalf("attempt %d: pods left after destroy: %v", attempt, left)
		}
	}
}

// TestAccCluster_seededWorkspace: a sandbox_volume on the cluster is
// seeded from a local directory as its owner, through a helper pod that
// the provider removes: the sandbox, running as that owner, reads the
// files and writes beside them; reseed copies the source in again, and
// what the sandbox wrote stays.
func TestAccCluster_seededWorkspace(t *testing.T) {
	name := acctest.ClusterName(t)
	addr := "sandbox_container.test"
	source := t.TempDir()
	acctest.Write(t, filepath.Join(source, "task", "README.md"), "fix the bug\n")
	config := func(reseed string) string {
		return clusterConfig(t, "", name, `  user   = "65534:65534"
  mounts = { "/workspace" = { volume = sandbox_volume.work.name } }`) + fmt.Sprintf(`
resource "sandbox_volume" "work" {
  name    = "%s-work"
  size_mb = 16
  source  = %q
  owner   = "65534:65534"
  reseed  = %q
}
`, name, source, reseed)
	}
	inside := func(script, want string) statecheck.StateCheck {
		return acctest.ClusterCheck(t, addr, func(ctx context.Context, c engine.Sandbox, _ *corev1.Pod) error {
			out, code, err := acctest.InPod(ctx, t, c.ID, "sh", "-c", script)
			if err != nil || code != 0 || out != want {
				return fmt.Errorf("%s: exit %d, %q, want %q, %w", script, code, out, want, err)
			}
			return nil
		})
	}
	acctest.ClusterTest(t, []resource.TestStep{{
		Config: config("0"),
		ConfigStateChecks: []statecheck.StateCheck{
			inside("cd /workspace && stat -c '%n %a %u:%g' . task task/README.md && cat task/README.md && "+
				"echo work > notes && cat notes",
				". 755 65534:65534\ntask 700 65534:65534\ntask/README.md 600 65534:65534\nfix the bug\nwork\n"),
		},
	}, {
		PreConfig: func() { acctest.Write(t, filepath.Join(source, "task", "README.md"), "a new task\n") },
		Config:    config("1"),
		ConfigStateChecks: []statecheck.StateCheck{
			inside("cat /workspace/task/README.md /workspace/notes", "a new task\nwork\n"),
		},
	}})
}
