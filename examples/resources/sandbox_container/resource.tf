# An isolated sandbox for an agent: no network but loopback, kept alive so
# that code can be exec'd into it.
resource "sandbox_container" "agent" {
  name         = "agent-sandbox"
  image        = "tfsandbox/busybox:latest"
  network_mode = "none"

  env = {
    TASK_ID = "42"
  }
  labels = {
    team = "platform"
  }
  working_dir = "/tmp"
  user        = "65534:65534"
}

# A sandbox that runs its own long-lived command instead of the keep-alive.
resource "sandbox_container" "worker" {
  image        = "tfsandbox/busybox:latest"
  network_mode = "none"
  command      = ["sleep", "86400"]
  stop_timeout = 2
}
