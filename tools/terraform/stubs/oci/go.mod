module github.com/hashicorp/terraform/internal/backend/remote-state/oci

go 1.26.0
