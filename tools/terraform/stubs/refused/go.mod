module github.com/hashicorp/terraform/internal/backend/remote-state/refused

go 1.26.0
