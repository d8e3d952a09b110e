// Package terraform stands in for Terraform's legacy package, which its Go
// module leaves out and only its own tests import; nothing the CLI builds
// uses it, and `go mod tidy` needs it to exist.
package terraform
