package execresource_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
)

// ephemeralConfig is an issuer sandbox, an ephemeral sandbox_exec that
// mints a token in it once and reads it at every open, and a worker
// sandbox that takes the token as a write-only variable.
func ephemeralConfig(name, extra string) string {
	return fmt.Sprintf(`
resource "sandbox_container" "issuer" {
  name         = "%[1]s-issuer"
  image        = %[2]q
  network_mode = "none"
}

ephemeral "sandbox_exec" "token" {
  container_id = sandbox_container.issuer.id
  command      = ["sh", "-c", "test -f /tmp/token || head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \\n' > /tmp/token; echo open >> /tmp/opens; cat /tmp/token"]
%[3]s
}

resource "sandbox_container" "worker" {
  name           = "%[1]s-worker"
  image          = %[2]q
  network_mode   = "none"
  env_wo         = { API_TOKEN = ephemeral.sandbox_exec.token.stdout }
  env_wo_version = 1
}
`, name, acctest.TestImage, extra)
}

// The ephemeral sandbox_exec hands a token minted in one sandbox to another
// as a write-only variable: it reaches the worker and no plan, apply output
// or state. Terraform opens it at every plan and apply, and a plan whose
// sandbox does not exist yet leaves it unknown.
func TestAccExecEphemeral_tokenNeverStored(t *testing.T) {
	name := acctest.Name(t)
	tf := acctest.NewCLI(t, ephemeralConfig(name, ""))
	t.Cleanup(func() { tf.Run("destroy", "-auto-approve") })

	planned := tf.Run("plan")
	applied := tf.Run("apply", "-auto-approve")
	ctx := context.Background()
	issuer := name + "-issuer"
	token, err := acctest.ExecOK(ctx, t, issuer, "cat", "/tmp/token")
	if err != nil || len(token) != 24 {
		t.Fatalf("no token minted in the issuer (%q, %v)", token, err)
	}
	if env := acctest.Inspect(t, name+"-worker").Config.Env; !slices.Contains(env, "API_TOKEN="+token) {
		t.Fatalf("the worker lacks the token: %v", env)
	}
	before, _ := acctest.ExecOK(ctx, t, issuer, "sh", "-c", "wc -l < /tmp/opens")
	replanned := tf.Run("plan")
	after, _ := acctest.ExecOK(ctx, t, issuer, "sh", "-c", "wc -l < /tmp/opens")
	if strings.TrimSpace(after) <= strings.TrimSpace(before) {
		t.Errorf("a plan did not open the ephemeral resource (%s opens, then %s)", strings.TrimSpace(before), strings.TrimSpace(after))
	}
	if !strings.Contains(replanned, "No changes") {
		t.Errorf("a plan after the apply is not empty:\n%s", replanned)
	}
	state, err := os.ReadFile(filepath.Join(tf.Dir, "terraform.tfstate"))
	if err != nil {
		t.Fatal(err)
	}
	for what, text := range map[string]string{"the first plan": planned, "the apply": applied,
		"the second plan": replanned, "the state": string(state)} {
		if strings.Contains(text, token) {
			t.Errorf("%s shows the token", what)
		}
	}
}

// The ephemeral sandbox_exec keeps the resource's rules: a timeout stops
// the command and fails the plan within seconds, and an exit code outside
// success_exit_codes fails it, naming the code and never showing the
// output; success_exit_codes lets a code through.
func TestAccExecEphemeral_timeoutAndExitCodes(t *testing.T) {
	name := acctest.Name(t)
	tf := acctest.NewCLI(t, ephemeralConfig(name, ""))
	t.Cleanup(func() { tf.Run("destroy", "-auto-approve") })
	tf.Run("apply", "-auto-approve")

	body := func(command, extra string) string {
		return strings.Replace(ephemeralConfig(name, extra), `command      = ["sh", "-c", "test -f`,
			`command      = `+command+`
  # was: ["sh", "-c", "test -f`, 1)
	}
	cases := []struct{ command, extra, want string }{
		{`["sh", "-c", "echo leaked-output-5e1; sleep 300"]`, `  timeout = "2s"`, "ran longer than its timeout (2s)"},
		{`["sh", "-c", "echo leaked-output-5e1; exit 3"]`, "", "exited 3, which is not among success_exit_codes [0]"},
	}
	for _, c := range cases {
		tf.SetConfig(body(c.command, c.extra))
		start := time.Now()
		out, err := tf.Start("plan").Wait(2 * time.Minute)
		switch flat := acctest.Flatten(out); {
		case err == nil:
			t.Errorf("the plan of %s succeeded:\n%s", c.command, out)
		case !strings.Contains(flat, c.want):
			t.Errorf("the plan of %s does not say %q:\n%s", c.command, c.want, out)
		case strings.Contains(out, "leaked-output-5e1"):
			t.Errorf("the plan of %s shows the command's output:\n%s", c.command, out)
		case time.Since(start) > time.Minute:
			t.Errorf("the plan of %s took %s", c.command, time.Since(start))
		}
	}
	if out, err := acctest.ExecOK(context.Background(), t, name+"-issuer", "ps", "-o", "args"); err != nil || strings.Contains(out, "sleep 300") {
		t.Errorf("the timed-out command still runs in the sandbox (%v):\n%s", err, out)
	}
	tf.SetConfig(body(`["sh", "-c", "cat /tmp/token; exit 3"]`, "  success_exit_codes = [3]"))
	if out := tf.Run("plan"); !strings.Contains(out, "No changes") {
		t.Errorf("exit code 3 in success_exit_codes did not pass:\n%s", out)
	}
	tf.SetConfig(ephemeralConfig(name, ""))
}
