package imageresource_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
)

// TestAccImage_privateBaseImage: a build FROM an image only the private
// registry holds pulls it with the provider's credentials for the
// registry; without them, the build fails.
func TestAccImage_privateBaseImage(t *testing.T) {
	reg := acctest.PrivateRegistry(t)
	name := acctest.ImageName(t)
	ref := reg.PushPrivate(t)
	dir := t.TempDir()
	acctest.Write(t, filepath.Join(dir, "Dockerfile"), fmt.Sprintf("FROM %s\nLABEL test.name=%q\n", ref, name))
	auth := fmt.Sprintf(`
provider "sandbox" {
  registry_auth = [{ address = %q, username = %q, password = %q }]
}
`, reg.Host, reg.User, reg.Password)
	acctest.Test(t, []resource.TestStep{
		{Config: imageConfig(name, dir, ""), ExpectError: acctest.Phrase("add a registry_auth entry for it")},
		{
			Config:            auth + imageConfig(name, dir, ""),
			ConfigStateChecks: []statecheck.StateCheck{acctest.ExpectIsolated(t, "sandbox_container.test")},
		},
	})
}
