package execresource_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
)

// A secret given to a command, in its arguments (through a sensitive
// variable) or in env, appears in no error and no log line, even at
// TF_LOG=TRACE, when the command fails, when it times out, and when it
// cannot start; the errors still name the program and what went wrong.
func TestAccExec_secretsStayOutOfErrorsAndLogs(t *testing.T) {
	const secret = "s3cr3t-token-8d1f"
	name := acctest.Name(t)
	cases := []struct{ command, extra, want string }{
		{`["sh", "-c", "echo \"using ${var.token}\"; echo \"$TOKEN refused\" >&2; exit 3", "${var.token}"]`, "",
			`The command "sh" (its arguments are not shown) in sandbox`},
		{`["sh", "-c", "echo \"${var.token}\"; echo \"$TOKEN\" >&2; exit 4"]`, "  sensitive_output = true\n",
			"standard output is not shown: sensitive_output is true"},
		{`["sh", "-c", "echo \"${var.token}\"; sleep 300"]`, "  timeout = \"2s\"\n",
			"ran longer than its timeout (2s)"},
		{`["/nonexistent/${var.token}"]`, "", `The command "/nonexistent/(sensitive value)" (its arguments are not shown)`},
	}
	tf := acctest.NewCLI(t, "")
	// Terraform logs its command line: the secret comes from the
	// environment, as CI passes secrets.
	tf.Env = append(tf.Env, "TF_VAR_token="+secret)
	t.Cleanup(func() { tf.Run("destroy", "-auto-approve") })
	logPath := filepath.Join(tf.Dir, "trace.log")
	tf.Env = append(tf.Env, "TF_LOG=TRACE", "TF_LOG_PATH="+logPath)
	for _, c := range cases {
		tf.SetConfig(`
variable "token" {
  type      = string
  sensitive = true
}
` + config(name, "", "  command = "+c.command+"\n  env = { TOKEN = var.token }\n"+c.extra))
		out, err := tf.Start("apply", "-auto-approve").Wait(2 * time.Minute)
		if err == nil {
			t.Fatalf("the apply of %s succeeded:\n%s", c.command, out)
		}
		if !strings.Contains(acctest.Flatten(out), c.want) {
			t.Errorf("the apply of %s does not say %q:\n%s", c.command, c.want, out)
		}
		if strings.Contains(out, secret) {
			t.Errorf("the apply of %s printed the secret:\n%s", c.command, out)
		}
	}
	trace, err := os.ReadFile(logPath)
	if err != nil || !strings.Contains(string(trace), "[TRACE]") {
		t.Fatalf("no TRACE log at %s (%v)", logPath, err)
	}
	for i, line := range strings.Split(string(trace), "\n") {
		if strings.Contains(line, secret) {
			t.Errorf("the TRACE log shows the secret on line %d: %s", i+1, line)
		}
	}
}
