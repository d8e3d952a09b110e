package execresource_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
)

// The action sandbox_exec runs its command when invoked, and when a
// sandbox's action_trigger fires after its create; each line of its output
// reaches the user, but for sensitive_output, and nothing reaches the
// state. An action that runs past its timeout fails the apply with the
// timeout named, and leaves none of its processes in the sandbox.
func TestAccExecAction_invokedTriggeredAndTimedOut(t *testing.T) {
	name := acctest.Name(t)
	const secret = "s3cr3t-value"
	tf := acctest.NewCLI(t, fmt.Sprintf(`
resource "sandbox_container" "test" {
  name         = %q
  image        = %q
  network_mode = "none"
  lifecycle {
    action_trigger {
      events  = [after_create]
      actions = [action.sandbox_exec.on_create]
    }
  }
}

action "sandbox_exec" "on_create" {
  config {
    container_id = sandbox_container.test.id
    command      = ["sh", "-c", "echo greeted-on-create; echo to-stderr >&2"]
  }
}

action "sandbox_exec" "greet" {
  config {
    container_id = sandbox_container.test.id
    command      = ["echo", "greeted-on-demand"]
  }
}

# An action's arguments cannot be sensitive: a secret comes in a
# sensitive value, which the plan hides.
variable "token" {
  type      = string
  sensitive = true
  default   = %q
}

action "sandbox_exec" "secret" {
  config {
    container_id     = sandbox_container.test.id
    command          = ["sh", "-c", "echo \"$TOKEN\"; printf 'hidden-%%s\\n' output"]
    env_wo           = { TOKEN = var.token }
    sensitive_output = true
  }
}

action "sandbox_exec" "slow" {
  config {
    container_id = sandbox_container.test.id
    command      = ["sh", "-c", "sleep 471 & sleep 472; echo never"]
    timeout      = "3s"
  }
}
`, name, acctest.TestImage, secret))
	t.Cleanup(func() { tf.Run("destroy", "-auto-approve") })

	out := tf.Run("apply", "-auto-approve")
	for _, want := range []string{"stdout: greeted-on-create", "stderr: to-stderr"} {
		if !strings.Contains(out, want) {
			t.Errorf("the action triggered after create did not show %q:\n%s", want, out)
		}
	}

	out = tf.Run("apply", "-auto-approve", "-invoke=action.sandbox_exec.greet")
	if !strings.Contains(out, "stdout: greeted-on-demand") {
		t.Errorf("the invoked action did not show its output:\n%s", out)
	}

	out = tf.Run("apply", "-auto-approve", "-invoke=action.sandbox_exec.secret")
	if strings.Contains(out, secret) || strings.Contains(out, "hidden-output") {
		t.Errorf("an action with sensitive_output showed its output:\n%s", out)
	}

	out, err := tf.Try("apply", "-auto-approve", "-no-color", "-input=false", "-invoke=action.sandbox_exec.slow")
	if err == nil || !strings.Contains(acctest.Flatten(out), "ran longer than its timeout (3s)") {
		t.Errorf("the action past its timeout did not fail naming it (%v):\n%s", err, out)
	}
	left, err := acctest.StillRunning(context.Background(), t, name, "sleep 471", "sleep 472")
	if err != nil {
		t.Fatal(err)
	}
	if len(left) > 0 {
		t.Errorf("the timed-out action left processes in the sandbox: %q", left)
	}

	state := tf.Exact("show", "-json", "-no-color")
	if strings.Contains(state, "action") && strings.Contains(state, "sandbox_exec") {
		t.Errorf("the state records an action:\n%s", state)
	}
	if strings.Contains(state, secret) || strings.Contains(state, "greeted-on-create") {
		t.Errorf("the state holds what an action ran or gave:\n%s", state)
	}
}
