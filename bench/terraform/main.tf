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

# The command rows (bench/run.sh): a command of the sandboxes' own, and
# their state (asleep, then woken).
variable "command" {
  type    = list(string)
  default = null
}

variable "state" {
  type    = string
  default = "running"
}

resource "sandbox_container" "bench" {
  count        = var.n
  name         = "tfbench-provider-${count.index}"
  image        = var.image
  network_mode = "none"
  command      = var.command
  state        = var.state
}
