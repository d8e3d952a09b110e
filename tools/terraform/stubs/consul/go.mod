module github.com/hashicorp/terraform/internal/backend/remote-state/consul

go 1.26.0
