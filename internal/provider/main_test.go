package provider_test

import (
	"testing"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
)

// TestMain runs the tests, or with -sweep the sweeper (`make sweep`). It
// also builds the tests' engine client before any test sets DOCKER_HOST
// and the like for itself.
func TestMain(m *testing.M) {
	acctest.Main(m)
}
