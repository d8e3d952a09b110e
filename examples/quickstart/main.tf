# Quickstart: one isolated sandbox. `make demo` applies it with the provider
# built from this repository and the image `make image` builds locally.
terraform {
  required_providers {
    sandbox = {
      source = "tfsandbox/sandbox"
    }
  }
}

provider "sandbox" {}

resource "sandbox_container" "quickstart" {
  name         = "sandbox-quickstart"
  image        = "tfsandbox/busybox:latest"
  network_mode = "none"

  labels = {
    purpose = "quickstart"
  }
}

output "sandbox_name" {
  value = sandbox_container.quickstart.name
}

output "sandbox_networks" {
  value = sandbox_container.quickstart.networks
}
