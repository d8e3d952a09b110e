package execresource_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
)

// writeOnlyConfig runs a command that proves it got env_wo's TOKEN (it
// prints the start of its digest), at version.
func writeOnlyConfig(name, version, script string) string {
	return `
variable "token" {
  type      = string
  sensitive = true
}
` + config(name, "", `  command        = ["sh", "-c", `+script+`]
  env_wo         = { TOKEN = var.token }
  env_wo_version = `+version)
}

const digestScript = `"test -n \"$TOKEN\" && printf %s \"$TOKEN\" | sha256sum | cut -c1-16"`

// execStdout is the stdout the state records for sandbox_exec.test, after
// checking that the state file holds no secret and no env_wo.
func execStdout(t *testing.T, dir string, secrets ...string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "terraform.tfstate"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range secrets {
		if strings.Contains(string(raw), s) {
			t.Fatalf("the state file holds the secret %q", s)
		}
	}
	var state struct {
		Resources []struct {
			Type      string
			Instances []struct{ Attributes map[string]any }
		}
	}
	if err := json.Unmarshal(raw, &state); err != nil {
		t.Fatal(err)
	}
	for _, r := range state.Resources {
		if r.Type == "sandbox_exec" && len(r.Instances) == 1 {
			attrs := r.Instances[0].Attributes
			if attrs["env_wo"] != nil {
				t.Fatalf("the state records env_wo: %v", attrs["env_wo"])
			}
			out, _ := attrs["stdout"].(string)
			return out
		}
	}
	t.Fatal("no sandbox_exec in the state")
	return ""
}

func digest16(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])[:16] + "\n"
}

// A secret given to the command in env_wo reaches it and no plan, state or
// error: a new value alone changes nothing (Terraform cannot see it), a new
// env_wo_version runs the command again with it, and a failing command's
// error does not show it.
func TestAccExec_writeOnlyEnvIsNeverStored(t *testing.T) {
	const first, second = "wo-secret-first-51c2", "wo-secret-second-77ae"
	name := acctest.Name(t)
	tf := acctest.NewCLI(t, "")
	t.Cleanup(func() { tf.Run("destroy", "-auto-approve", "-var", "token="+second) })
	tf.Env = append(tf.Env, "TF_VAR_token="+first)

	tf.SetConfig(writeOnlyConfig(name, "1", digestScript))
	if out := tf.Run("apply", "-auto-approve"); strings.Contains(out, first) {
		t.Fatalf("the apply printed the secret:\n%s", out)
	}
	if got := execStdout(t, tf.Dir, first); got != digest16(first) {
		t.Fatalf("the command printed %q, want the digest of env_wo's TOKEN %q", got, digest16(first))
	}

	tf.Env = append(tf.Env, "TF_VAR_token="+second)
	if out, err := tf.Try("plan", "-detailed-exitcode", "-no-color", "-input=false"); err != nil {
		t.Fatalf("a new env_wo value without a new version planned a change (%v):\n%s", err, out)
	}
	tf.SetConfig(writeOnlyConfig(name, "2", digestScript))
	tf.Run("apply", "-auto-approve")
	if got := execStdout(t, tf.Dir, first, second); got != digest16(second) {
		t.Fatalf("after env_wo_version 2 the command printed %q, want the new value's digest %q", got, digest16(second))
	}

	tf.SetConfig(writeOnlyConfig(name, "3", `"echo \"got $TOKEN\"; echo \"$TOKEN\" >&2; exit 3"`))
	out, err := tf.Start("apply", "-auto-approve").Wait(2 * time.Minute)
	switch {
	case err == nil:
		t.Fatalf("a command that exits 3 applied:\n%s", out)
	case strings.Contains(out, second):
		t.Fatalf("the failed command's error shows the secret:\n%s", out)
	case !strings.Contains(acctest.Flatten(out), "exited 3"):
		t.Fatalf("the error does not say the command exited 3:\n%s", out)
	}
	tf.SetConfig(writeOnlyConfig(name, "4", digestScript))
}

// env_wo without env_wo_version, and a variable in both env and env_wo,
// are refused at plan.
func TestAccExec_writeOnlyEnvRefusedAtPlan(t *testing.T) {
	name := acctest.Name(t)
	acctest.Test(t, []resource.TestStep{
		{
			Config: config(name, "", `  command = ["true"]
  env_wo  = { TOKEN = "x" }`),
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`(?s)Secret version missing.*runs the command again`),
		},
		{
			Config: config(name, "", `  command        = ["true"]
  env            = { TOKEN = "a" }
  env_wo         = { TOKEN = "b" }
  env_wo_version = 1`),
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`(?s)Variable set twice.*env_wo\["TOKEN"\] is also in env`),
		},
		{Config: config(name, "", `  command = ["true"]`)},
	})
}
