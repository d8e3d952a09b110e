package acctest

import (
	"encoding/json"
	"os"
	"os/exec"
	"testing"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/cli"
)

// terraformBinary is the terraform the tests run: TF_ACC_TERRAFORM_PATH,
// or the one on PATH.
func terraformBinary(t *testing.T) string {
	t.Helper()
	if bin := os.Getenv("TF_ACC_TERRAFORM_PATH"); bin != "" {
		return bin
	}
	bin, err := exec.LookPath("terraform")
	if err != nil {
		t.Fatal("terraform is not on PATH and TF_ACC_TERRAFORM_PATH is not set")
	}
	return bin
}

// TerraformCLI is the terraform the tests run, as the provider learns it
// (its version), for a test of what a CLI cannot do.
func TerraformCLI(t *testing.T) cli.CLI {
	t.Helper()
	bin := terraformBinary(t)
	out, err := exec.Command(bin, "version", "-json").Output()
	var v struct {
		Version string `json:"terraform_version"`
	}
	if err == nil {
		err = json.Unmarshal(out, &v)
	}
	if err != nil {
		t.Fatalf("%s version -json: %v\n%s", bin, err, out)
	}
	return cli.New(v.Version)
}
