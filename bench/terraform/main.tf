# N isolated sandboxes, the provider's side of the benchmark (bench/run.sh).
terraform {
  required_providers {
    sandbox = {
      source = "tfsandbox/sandbox"
    }
  }
}

variable "n" {
  type = number
}

variable "image" {
  type = string
}

resource "sandbox_container" "bench" {
  count        = var.n
  name         = "tfbench-provider-${count.index}"
  image        = var.image
  network_mode = "none"
}
