package containerresource

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/values"
)

// Every combination the resource refuses at plan time, each on the
// attribute's path; and the same attributes in combinations that are fine.
func TestValidateCombinations(t *testing.T) {
	t.Parallel()
	ulimits := func(soft, hard int64) types.Map {
		return types.MapValueMust(types.ObjectType{AttrTypes: ulimitAttrTypes}, map[string]attr.Value{
			"nofile": types.ObjectValueMust(ulimitAttrTypes, map[string]attr.Value{
				"soft": types.Int64Value(soft), "hard": types.Int64Value(hard),
			}),
		})
	}
	port := types.SetValueMust(types.ObjectType{AttrTypes: portAttrTypes}, []attr.Value{
		types.ObjectValueMust(portAttrTypes, map[string]attr.Value{
			"internal": types.Int64Value(80), "external": types.Int64Null(),
			"host_ip": types.StringNull(), "protocol": types.StringNull(),
		}),
	})
	files := types.DynamicValue(types.ObjectValueMust(
		map[string]attr.Type{"/work/a": types.ObjectType{AttrTypes: map[string]attr.Type{"content": types.StringType}}},
		map[string]attr.Value{"/work/a": types.ObjectValueMust(map[string]attr.Type{"content": types.StringType},
			map[string]attr.Value{"content": types.StringValue("x")})}))
	cases := []struct {
		name    string
		change  func(m *resourceModel)
		summary string // "" when the combination is fine
		path    path.Path
	}{
		{"nothing configured", func(*resourceModel) {}, "", path.Empty()},
		{"capability added and dropped", func(m *resourceModel) {
			m.CapAdd, m.CapDrop = values.StringSet([]string{"NET_RAW"}), values.StringSet([]string{"NET_RAW", "ALL"})
		}, "Capability both added and dropped", path.Root("cap_add")},
		{"different capabilities added and dropped", func(m *resourceModel) {
			m.CapAdd, m.CapDrop = values.StringSet([]string{"CHOWN"}), values.StringSet([]string{"ALL"})
		}, "", path.Empty()},
		{"capability that breaks containment", func(m *resourceModel) {
			m.CapAdd = values.StringSet([]string{"SYS_ADMIN"})
		}, "Capability breaks containment", path.Root("cap_add")},
		{"capability that breaks containment, explicitly not allowed", func(m *resourceModel) {
			m.CapAdd, m.AllowUnsafeCapabilities = values.StringSet([]string{"SYS_PTRACE"}), types.BoolValue(false)
		}, "Capability breaks containment", path.Root("cap_add")},
		{"capability that breaks containment, allowed", func(m *resourceModel) {
			m.CapAdd, m.AllowUnsafeCapabilities = values.StringSet([]string{"SYS_ADMIN"}), types.BoolValue(true)
		}, "", path.Empty()},
		{"allow-by-default seccomp profile", func(m *resourceModel) {
			m.SecurityOpts, m.AllowUnconfined = values.StringSet([]string{`seccomp={"defaultAction":"SCMP_ACT_ALLOW"}`}), types.BoolValue(false)
		}, "Security option disables confinement", path.Root("security_opts")},
		{"unconfined without the escape hatch", func(m *resourceModel) {
			m.SecurityOpts, m.AllowUnconfined = values.StringSet([]string{"seccomp=unconfined"}), types.BoolValue(false)
		}, "Security option disables confinement", path.Root("security_opts")},
		{"unconfined with the escape hatch", func(m *resourceModel) {
			m.SecurityOpts, m.AllowUnconfined = values.StringSet([]string{"seccomp=unconfined"}), types.BoolValue(true)
		}, "", path.Empty()},
		{"escape hatch not known yet", func(m *resourceModel) {
			m.SecurityOpts, m.AllowUnconfined = values.StringSet([]string{"label=disable"}), types.BoolUnknown()
		}, "", path.Empty()},
		{"swap below memory", func(m *resourceModel) {
			m.Memory, m.MemorySwap = types.Int64Value(64), types.Int64Value(32)
		}, "Memory plus swap below memory", path.Root("memory_swap")},
		{"swap not known yet", func(m *resourceModel) {
			m.Memory, m.MemorySwap = types.Int64Value(64), types.Int64Unknown()
		}, "", path.Empty()},
		{"soft ulimit above hard", func(m *resourceModel) { m.Ulimits = ulimits(10, 5) },
			"Soft limit above hard limit", path.Root("ulimits").AtMapKey("nofile").AtName("soft")},
		{"soft ulimit equal to hard", func(m *resourceModel) { m.Ulimits = ulimits(5, 5) }, "", path.Empty()},
		{"ports on an isolated sandbox", func(m *resourceModel) { m.Ports = port },
			"Ports need a network", path.Root("ports")},
		{"ports with a network", func(m *resourceModel) { m.Ports, m.NetworkMode = port, types.StringNull() },
			"", path.Empty()},
		{"files with a read-only root", func(m *resourceModel) {
			m.Files, m.ReadOnly = files, types.BoolValue(true)
		}, "", path.Empty()},
		{"file under a tmpfs mount", func(m *resourceModel) {
			m.Files, m.Tmpfs = files, values.StringMap(map[string]string{"/work": ""})
		}, "File hidden by a tmpfs mount", path.Root("files").AtMapKey("/work/a")},
		{"file beside a tmpfs mount with a common prefix", func(m *resourceModel) {
			m.Files, m.Tmpfs = files, values.StringMap(map[string]string{"/wo": ""})
		}, "", path.Empty()},
		{"variable in env and env_wo", func(m *resourceModel) {
			m.Env, m.EnvWO = values.StringMap(map[string]string{"A": "1"}), values.StringMap(map[string]string{"A": "2"})
			m.EnvWOVersion = types.Int64Value(1)
		}, "Variable set twice", path.Root("env_wo").AtMapKey("A")},
		{"different variables in env and env_wo", func(m *resourceModel) {
			m.Env, m.EnvWO = values.StringMap(map[string]string{"A": "1"}), values.StringMap(map[string]string{"B": "2"})
			m.EnvWOVersion = types.Int64Value(1)
		}, "", path.Empty()},
		{"env_wo without a version", func(m *resourceModel) {
			m.EnvWO = values.StringMap(map[string]string{"B": "2"})
		}, "Secret version missing", path.Root("env_wo_version")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			m := coreModel()
			c.change(&m)
			diags := m.validate(context.Background())
			if c.summary == "" {
				if diags.HasError() {
					t.Fatalf("refused a fine combination: %v", diags)
				}
				return
			}
			if len(diags) != 1 || diags[0].Summary() != c.summary {
				t.Fatalf("diagnostics %v, want one %q", diags, c.summary)
			}
			withPath, ok := diags[0].(interface{ Path() path.Path })
			if !ok || !withPath.Path().Equal(c.path) {
				t.Errorf("%q is not on %s", c.summary, c.path)
			}
		})
	}
}

func TestAttributeValidators(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		v     validator.String
		value string
		ok    bool
	}{
		{"image by name", imageValidator(), "tfsandbox/busybox:latest", true},
		{"image by digest", imageValidator(), "registry.example/team/img@sha256:" + sixtyFourHex, true},
		{"image by ID", imageValidator(), "sha256:" + sixtyFourHex, true},
		{"image that reads as a flag", imageValidator(), "--privileged", false},
		{"image in upper case", imageValidator(), "Busybox", false},
		{"user by name", userValidator(), "nobody", true},
		{"user and group by ID", userValidator(), "65534:65534", true},
		{"user and group by name", userValidator(), "app:staff", true},
		{"largest ID", userValidator(), "4294967294", true},
		{"ID out of range", userValidator(), "99999999999", false},
		{"reserved ID", userValidator(), "4294967295", false},
		{"shell in the user", userValidator(), "root;rm", false},
		{"empty group", userValidator(), "root:", false},
		{"absolute working directory", absoluteDirValidator(), "/workspace", true},
		{"root working directory", absoluteDirValidator(), "/", true},
		{"relative working directory", absoluteDirValidator(), "relative", false},
		{"file outside kernel filesystems", outsideKernelFilesystems(), "/process/x", true},
		{"file under /proc", outsideKernelFilesystems(), "/proc/sys/x", false},
		{"file that is /dev", outsideKernelFilesystems(), "/dev", false},
		{"file under /sys", outsideKernelFilesystems(), "/sys/fs/cgroup/x", false},
		{"capability", capabilityValidator(false), "NET_RAW", true},
		{"capability lower case", capabilityValidator(false), "net_raw", false},
		{"capability with prefix", capabilityValidator(false), "CAP_NET_RAW", false},
		{"unknown capability", capabilityValidator(true), "NET_MAGIC", false},
		{"ALL in drop", capabilityValidator(true), allCapabilities, true},
		{"ALL in add", capabilityValidator(false), allCapabilities, false},
		{"seccomp profile", securityOptValidator(), `seccomp={"defaultAction":"SCMP_ACT_ERRNO"}`, true},
		{"apparmor legacy form", securityOptValidator(), "apparmor:docker-default", true},
		{"no-new-privileges", securityOptValidator(), noNewPrivileges, false},
		{"no-new-privileges with value", securityOptValidator(), noNewPrivileges + "=true", false},
		{"unknown key", securityOptValidator(), "foo=bar", false},
		{"empty value", securityOptValidator(), "seccomp=", false},
		{"seccomp profile not JSON", securityOptValidator(), "seccomp=profile.json", false},
		{"seccomp profile without default action", securityOptValidator(), `seccomp={"syscalls":[]}`, false},
		{"seccomp unconfined (checked with the escape hatch)", securityOptValidator(), "seccomp=unconfined", true},
		{"systempaths other than unconfined", securityOptValidator(), "systempaths=/proc", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			resp := &validator.StringResponse{}
			c.v.ValidateString(context.Background(), validator.StringRequest{
				Path: path.Root("x"), ConfigValue: types.StringValue(c.value),
			}, resp)
			if got := !resp.Diagnostics.HasError(); got != c.ok {
				t.Fatalf("%q: ok = %v, want %v (%v)", c.value, got, c.ok, resp.Diagnostics)
			}
		})
	}
}

const sixtyFourHex = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

func TestUnconfined(t *testing.T) {
	t.Parallel()
	for opt, want := range map[string]bool{
		"seccomp=unconfined":                         true,
		"seccomp:unconfined":                         true,
		"apparmor=unconfined":                        true,
		"systempaths=unconfined":                     true,
		"label=disable":                              true,
		"label:disable":                              true,
		"label=type:unconfined_t":                    true,
		"label=level:s0":                             false,
		"apparmor=docker-default":                    false,
		`seccomp={"x":1}`:                            false,
		`seccomp={"defaultAction":"SCMP_ACT_ALLOW"}`: true,
		`seccomp={"defaultAction":"SCMP_ACT_LOG","syscalls":[]}`:         true,
		`seccomp={"defaultAction":"SCMP_ACT_ERRNO","defaultErrnoRet":1}`: false,
	} {
		if got := isUnconfined(opt); got != want {
			t.Errorf("unconfined(%q) = %q, want unconfined %v", opt, unconfined(opt), want)
		}
	}
}

func TestTmpfsOptions(t *testing.T) {
	for _, ok := range []string{"", "rw,size=64m,mode=1777", "rw,exec,size=256m", "size=50%,nr_inodes=10k", "uid=65534,gid=65534,mode=0700", "ro,noexec,nosuid,nodev"} {
		if p := tmpfsOptionsProblem(ok); p != "" {
			t.Errorf("%q refused: %s", ok, p)
		}
	}
	for _, bad := range []string{"size=64MB", "size=", "mode=rwx", "uid=nobody", "rw,,size=1m", "exec=1", "bogus"} {
		if p := tmpfsOptionsProblem(bad); p == "" {
			t.Errorf("%q accepted", bad)
		}
	}
}

// A CLI that cannot send write-only attributes is refused env_wo, with the
// versions that can; without env_wo, or on a CLI that can, nothing is said.
func TestWriteOnlyNeedsACapableCLI(t *testing.T) {
	t.Parallel()
	secrets := secretsModel{EnvWO: values.StringMap(map[string]string{"TOKEN": "x"}), EnvWOVersion: types.Int64Value(1)}
	diags := secrets.NeedsCapableCLI(false)
	if !diags.HasError() || len(diags) != 1 {
		t.Fatalf("env_wo on an old CLI: %v", diags)
	}
	if d := diags[0]; d.Summary() != "This CLI cannot keep env_wo out of the state" ||
		!strings.Contains(d.Detail(), "Terraform 1.11 or later and OpenTofu 1.11 or later") {
		t.Errorf("diagnostic %q: %s", d.Summary(), d.Detail())
	}
	if diags := secrets.NeedsCapableCLI(true); diags.HasError() {
		t.Errorf("env_wo on a capable CLI: %v", diags)
	}
	if diags := nullSecrets().NeedsCapableCLI(false); diags.HasError() {
		t.Errorf("no env_wo on an old CLI: %v", diags)
	}
}

// The hardening guide's table of capabilities is the code's: every
// capability, what it does and whether it needs the escape hatch.
func TestCapabilityTableInTheGuideIsTheCode(t *testing.T) {
	guide, err := os.ReadFile(filepath.Join("..", "..", "..", "templates", "guides", "hardening.md.tmpl"))
	if err != nil {
		t.Fatal(err)
	}
	rows := regexp.MustCompile("(?m)^\\| `([A-Z_]+)` \\| ([^|]+) \\| ([^|]+) \\| ([^|]+) \\|$").FindAllStringSubmatch(string(guide), -1)
	seen := map[string]bool{}
	for _, row := range rows {
		effect, ok := engine.CapabilityEffects[row[1]]
		if !ok {
			t.Errorf("the guide lists %s, which the provider does not know", row[1])
			continue
		}
		seen[row[1]] = true
		reach := "the sandbox only"
		if effect.Unsafe {
			reach = "the host"
		}
		if row[2] != effect.What || row[3] != reach {
			t.Errorf("the guide says %s lets root %q and reaches %q; the code says %q and %q", row[1], row[2], row[3], effect.What, reach)
		}
	}
	for _, c := range engine.Capabilities {
		if !seen[c] {
			t.Errorf("the guide's table lacks %s", c)
		}
	}
}
