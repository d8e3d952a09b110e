// Package cli says what the CLI that runs the provider can do. Terraform
// and OpenTofu tell a provider only their version, in its Configure: a
// behaviour of a CLI release that the provider must work around is
// decided here, from that version, with a table test.
package cli

import (
	"github.com/hashicorp/go-version"
)

// CLI is the Terraform or OpenTofu that configured the provider.
type CLI struct {
	version *version.Version // nil when unknown or unreadable
}

// New is the CLI of the version it reported ("1.16.4"); an empty or
// unreadable version is a CLI of unknown version.
func New(reported string) CLI {
	v, err := version.NewVersion(reported)
	if err != nil {
		return CLI{}
	}
	return CLI{version: v}
}

// String is the CLI as the provider's messages name it.
func (c CLI) String() string {
	if c.version == nil {
		return "this Terraform"
	}
	return "Terraform " + c.version.String()
}

// firstLosingFailedCreates is the first release that cannot save the
// object of a failed create.
var firstLosingFailedCreates = version.Must(version.NewVersion("1.14.0"))

// SavesFailedCreates reports whether the CLI can record the object a
// create that failed returns (a partial state), tainted, as providers
// rely on to have the next apply replace it. Terraform 1.14.0 and later
// cannot, safely: they write that object with no status before marking it
// tainted, and when another resource of the same apply updates the state
// in that moment, Terraform crashes writing it ("Failed to serialize
// resource instance in state: ... has status ObjectStatus(0)"), losing
// what that apply did. The creates that fail this way (an engine that died)
// fail together, so the race is the rule, not the exception. 1.16.4, the
// newest tested, still does; no fixed release is known, so every later
// one is taken to do so too. A CLI of unknown version is taken to save
// them, as Terraform up to 1.13 and OpenTofu do. (OpenTofu reports its own
// version: a release of it from 1.14 on would be taken for Terraform's and
// lose the tainted record only.)
func (c CLI) SavesFailedCreates() bool {
	return c.version == nil || c.version.LessThan(firstLosingFailedCreates)
}

// NotSaved says, in an error, why the object of a failed create is not in
// the state: a CLI that cannot save it (SavesFailedCreates).
func (c CLI) NotSaved(what string) string {
	return c.String() + " cannot record a failed create in its state (a Terraform bug from 1.14 on: it would " +
		"fail to write the whole state), so the " + what + " is not recorded, and the next apply finds its name in use"
}
