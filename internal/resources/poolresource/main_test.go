package poolresource_test

import (
	"testing"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
)

// TestMain runs the tests, or with -sweep the sweeper that removes what a
// crashed acceptance run left behind (`make sweep`).
func TestMain(m *testing.M) {
	acctest.Main(m)
}
