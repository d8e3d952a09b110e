# Quickstart, offline: build an agent image from ./agent (FROM the local
# busybox image that `make image` builds), start a read-only, network-less
# sandbox from it with a task file, run its setup command and read the
# output, and list the engine's sandboxes with their isolation.
# `make demo` installs the provider into the local mirror (`make install`),
# then runs `terraform init` and `apply` here; by hand, from the repository:
#
#   make install image
#   cd examples/quickstart && terraform init && terraform apply
#   terraform destroy                      # or: make demo-destroy
terraform {
  required_providers {
    sandbox = {
      source  = "tfsandbox/sandbox"
      version = "~> 0.1"
    }
  }
}

provider "sandbox" {}

resource "sandbox_image" "agent" {
  name    = "sandbox-quickstart-agent:1"
  context = "${path.module}/agent"
}

resource "sandbox_container" "quickstart" {
  name         = "sandbox-quickstart"
  image        = sandbox_image.agent.image_id
  network_mode = "none"

  user      = "1000:1000"
  cap_drop  = ["ALL"]
  read_only = true
  tmpfs = {
    "/workspace" = "rw,size=64m,mode=1777"
  }
  files = {
    "/etc/agent/task.json" = { content = jsonencode({ task = "summarise", budget = 3 }) }
  }

  labels = {
    purpose = "quickstart"
  }
}

resource "sandbox_exec" "setup" {
  container_id = sandbox_container.quickstart.id
  command      = ["/usr/local/bin/agent-setup", "/workspace"]
  timeout      = "30s"
}

data "sandbox_containers" "quickstart" {
  name_prefix = "sandbox-quickstart"
  depends_on  = [sandbox_exec.setup]
}

output "sandbox_name" {
  value = sandbox_container.quickstart.name
}

output "sandbox_networks" {
  value = sandbox_container.quickstart.networks
}

output "setup_output" {
  value = sandbox_exec.setup.stdout
}

output "isolation" {
  value = { for c in data.sandbox_containers.quickstart.containers : c.name => c.isolated ? "isolated" : c.reason }
}
