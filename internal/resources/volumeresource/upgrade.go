package volumeresource

import "github.com/hashicorp/terraform-plugin-framework/resource"

// schemaVersion is the version of the current schema. Each later version
// will freeze the schema it replaces here, with one upgrader straight to
// the current version (as sandbox_container's upgrade.go does).
const schemaVersion = 0

// stateUpgraders has one upgrader per earlier schema version: none yet.
func stateUpgraders() map[int64]resource.StateUpgrader {
	return map[int64]resource.StateUpgrader{}
}
