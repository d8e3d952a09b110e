package poolresource

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/values"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/writeonly"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/isolation"
)

func TestCommandOf(t *testing.T) {
	for _, c := range []struct {
		name             string
		entrypoint, args []string
		want             types.List
	}{
		{"keep-alive", keepAlive, nil, types.ListNull(types.StringType)},
		{"arguments", nil, []string{"python", "-u"}, values.StringList([]string{"python", "-u"})},
		{"an entrypoint set out of band", []string{"sh"}, []string{"-c", "x"},
			values.StringList([]string{"entrypoint:", "sh", "-c", "x"})},
		{"keep-alive given arguments", keepAlive, []string{"x"}, values.StringList([]string{"entrypoint:", "tail", "-f", "/dev/null", "x"})},
	} {
		if got := commandOf(c.entrypoint, c.args); !got.Equal(c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// The template's settings, written and read back, are what the plan held;
// hardening weakened in any way reads false.
func TestSpecRoundTrip(t *testing.T) {
	m := resourceModel{Name: types.StringValue("p"), Replicas: types.Int64Value(2), Image: types.StringValue("img"),
		Command: types.ListNull(types.StringType), WorkingDir: types.StringNull(), User: types.StringValue("1000:1000"),
		Env: values.StringMap(map[string]string{"A": "1"}), ReadOnly: types.BoolValue(true), Memory: types.Int64Value(64),
		CPUs: types.Float64Value(0.5), secretsModel: writeonly.Null(), Files: testFiles(),
		CapAdd: values.StringSetOrNull([]string{"CHOWN", "SETUID"})}
	spec, diags := m.spec(context.Background(), map[string]string{"S": "secret"})
	if diags.HasError() {
		t.Fatal(diags)
	}
	s := spec.Sandbox
	if len(s.Files) != 2 || s.Files[0].Path != "/a/bin" || s.Files[0].Mode != 0o755 || string(s.Files[0].Content) != "\x00\x01" ||
		s.Files[1].Path != "/b.txt" || s.Files[1].Mode != 0o644 || string(s.Files[1].Content) != "text" {
		t.Fatalf("files: %+v", s.Files)
	}
	if s.NetworkMode != isolation.NoneMode || s.Labels[engine.LabelCreateToken] == "" || len(s.SecretEnv) != 1 ||
		s.Limits.Memory != 64<<20 || s.Limits.NanoCPUs != 5e8 || spec.Replicas != 2 {
		t.Fatalf("spec: %+v", spec)
	}
	if !slices.Equal(s.CapAdd, []string{"CHOWN", "SETUID"}) || !slices.Equal(s.CapDrop, []string{"ALL"}) {
		t.Fatalf("capabilities: add %v, drop %v", s.CapAdd, s.CapDrop)
	}
	h := &engine.HostConfig{CapAdd: []string{"SETUID", "CAP_CHOWN"}, CapDrop: s.CapDrop, SecurityOpt: s.SecurityOpt, ReadonlyRootfs: true, Memory: 64 << 20,
		MemorySwap: 64 << 20, NanoCPUs: 5e8}
	pool := engine.Pool{ID: "ns/p/template:u", Name: "p", Replicas: 2, Ready: 2, Template: engine.Sandbox{
		Container: engine.Container{HostConfig: h, Config: &engine.ContainerConfig{Image: "img",
			Entrypoint: keepAlive, Env: []string{"A=1"}, User: "1000:1000"}},
		Network: isolation.Observed{Pod: &isolation.Pod{RuntimeClass: "gvisor", IsolatedClass: "gvisor"}},
	}}
	got := m
	got.observe(pool)
	if !values.Unchanged(got, func() resourceModel {
		m.ID, m.NetworkMode, m.Hardened = types.StringValue(pool.ID), types.StringValue("none"), types.BoolValue(true)
		m.ReadyReplicas, m.ClaimedReplicas = types.Int64Value(2), types.Int64Value(0)
		return m
	}()) {
		t.Errorf("read back: %+v", got)
	}
	for name, weaken := range map[string]func(h *engine.HostConfig){
		"privileged":            func(h *engine.HostConfig) { h.Privileged = true },
		"an unsafe capability":  func(h *engine.HostConfig) { h.CapAdd = []string{"CHOWN", "NET_ADMIN"} },
		"every capability":      func(h *engine.HostConfig) { h.CapAdd = []string{"ALL"} },
		"an unknown capability": func(h *engine.HostConfig) { h.CapAdd = []string{"CAP_SOMETHING_NEW"} },
		"capabilities kept":     func(h *engine.HostConfig) { h.CapDrop = nil },
		"privilege escalation":  func(h *engine.HostConfig) { h.SecurityOpt = nil },
		"no seccomp": func(h *engine.HostConfig) {
			h.SecurityOpt = append(h.SecurityOpt, "seccomp=unconfined")
		},
	} {
		weak := *h
		weak.SecurityOpt = append([]string(nil), h.SecurityOpt...)
		weaken(&weak)
		if hardened(&weak) {
			t.Errorf("%s: still reads hardened", name)
		}
	}
}

// The pool's verdict is the worst of its template and its warm sandboxes;
// a claimed sandbox is its claim's.
func TestVerdict(t *testing.T) {
	ok := isolation.Observed{Pod: &isolation.Pod{RuntimeClass: "gvisor", IsolatedClass: "gvisor"}}
	host := isolation.Observed{Pod: &isolation.Pod{HostNetwork: true, RuntimeClass: "gvisor", IsolatedClass: "gvisor"}}
	pool := engine.Pool{Template: engine.Sandbox{Network: ok}, Sandboxes: []engine.PoolSandbox{
		{Name: "a", Network: ok}, {Name: "b", Claim: "c", Network: host}}}
	if v := verdict(pool); !v.Isolated {
		t.Errorf("a claimed sandbox decided the pool's verdict: %+v", v)
	}
	pool.Sandboxes[0].Network = host
	if v := verdict(pool); v.Isolated || v.Mode != isolation.PodModeHost {
		t.Errorf("a warm sandboxe's host network: %+v", v)
	}
	pool.Sandboxes = nil
	pool.Template.Network = host
	if v := verdict(pool); v.Isolated {
		t.Errorf("the template's host network: %+v", v)
	}
}

// testFiles are a binary file with a mode and a text file without one.
func testFiles() types.Map {
	obj := types.ObjectType{AttrTypes: map[string]attr.Type{
		"content": types.StringType, "content_base64": types.StringType, "mode": types.StringType}}
	file := func(content, b64, mode types.String) attr.Value {
		return types.ObjectValueMust(obj.AttrTypes, map[string]attr.Value{"content": content, "content_base64": b64, "mode": mode})
	}
	return types.MapValueMust(obj, map[string]attr.Value{
		"/a/bin": file(types.StringNull(), types.StringValue("AAE="), types.StringValue("0755")),
		"/b.txt": file(types.StringValue("text"), types.StringNull(), types.StringNull()),
	})
}

// cap_add takes a capability whose effect stays within the sandbox, and
// refuses one that reaches past it, saying what it would let root do.
func TestSafeCapability(t *testing.T) {
	for c, want := range map[string]string{
		"CHOWN": "", "SETGID": "", "NET_BIND_SERVICE": "",
		"SYS_ADMIN": "cannot add SYS_ADMIN, with which root in a sandbox can mount filesystems",
		"ALL":       "cannot add ALL capabilities", "chown": "must be a Linux capability name",
	} {
		req := validator.StringRequest{Path: path.Root("cap_add"), ConfigValue: types.StringValue(c)}
		resp := &validator.StringResponse{}
		safeCapability().ValidateString(context.Background(), req, resp)
		got := ""
		if resp.Diagnostics.HasError() {
			got = resp.Diagnostics[0].Detail()
		}
		if (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("%s: %q, want %q", c, got, want)
		}
	}
}
