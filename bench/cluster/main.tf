# N isolated sandboxes on the test cluster, the cluster rows of the
# benchmark (bench/run.sh).
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

variable "kubeconfig" {
  type = string
}

variable "runtime_class" {
  type    = string
  default = "none"
}

provider "sandbox" {
  kubernetes = {
    config_path   = var.kubeconfig
    runtime_class = var.runtime_class
  }
}

# The wake rows (bench/run.sh): asleep, then woken.
variable "state" {
  type    = string
  default = "running"
}

resource "sandbox_container" "bench" {
  count        = var.n
  name         = "tfbench-${count.index}"
  image        = var.image
  network_mode = "none"
  state        = var.state
}
