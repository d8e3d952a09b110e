package provider_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// The CI example (examples/ci), through the real terraform CLI: a
// pipeline's job sandboxes are made isolated with an expiry an hour after
// their creation, which the engine records and the outputs show; none is
// listed as expired; a second plan is empty; destroy leaves nothing.
func TestAccCIExample(t *testing.T) {
	name := acctest.Name(t)
	cli := acctest.NewCLI(t, "")
	acctest.RemoveWarden(t)
	main, err := os.ReadFile(filepath.Join(acctest.ModuleRoot(t), "examples", "ci", "main.tf"))
	if err != nil {
		t.Fatal(err)
	}
	acctest.Write(t, filepath.Join(cli.Dir, "main.tf"), strings.ReplaceAll(string(main), `"ci-`, `"`+name+`-`))
	vars := []string{"-var", "pipeline=p1", "-var", "image=" + acctest.TestImage, "-var", "lifetime=1h"}
	defer cli.Run(append([]string{"destroy", "-auto-approve"}, vars...)...)

	before := time.Now().Truncate(time.Second)
	cli.Run(append([]string{"apply", "-auto-approve"}, vars...)...)
	var outputs map[string]struct{ Value any }
	if err := json.Unmarshal([]byte(cli.Exact("output", "-json")), &outputs); err != nil {
		t.Fatal(err)
	}
	expiries, _ := outputs["expires_at"].Value.(map[string]any)
	if len(expiries) != 2 {
		t.Fatalf("expires_at %v, want two sandboxes", expiries)
	}
	for job, at := range expiries {
		c := acctest.Inspect(t, job)
		recorded := engine.ExpiryOf(c.Config.Labels)
		if recorded.Format(time.RFC3339) != at || recorded.Sub(before) < time.Hour || recorded.Sub(before) > time.Hour+time.Minute {
			t.Errorf("%s expires at %v (state %v), want an hour after its creation", job, recorded, at)
		}
		if !engine.IsRunning(c) {
			t.Errorf("%s is %s", job, c.State.Status)
		}
	}
	if expired, _ := outputs["expired"].Value.([]any); len(expired) != 0 {
		t.Errorf("expired %v, want none", expired)
	}
	if plan := cli.Run(append([]string{"plan"}, vars...)...); !strings.Contains(plan, "No changes") {
		t.Errorf("a second plan is not empty:\n%s", plan)
	}
	cli.Run(append([]string{"destroy", "-auto-approve"}, vars...)...)
	acctest.ExpectNoContainers(t, name, "destroy")
}
