module github.com/hashicorp/terraform/internal/backend/remote-state/cos

go 1.26.0
