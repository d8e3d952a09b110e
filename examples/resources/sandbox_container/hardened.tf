# A fully hardened sandbox for untrusted code: no network, gVisor's
# user-space kernel between the code and the host, no capabilities, no
# privilege escalation, a read-only root with in-memory scratch space, a
# non-root user, and bounded memory, CPU and processes.
resource "sandbox_container" "untrusted" {
  name         = "untrusted-code"
  image        = "tfsandbox/busybox:latest"
  network_mode = "none"
  runtime      = "runsc"

  user              = "65534:65534"
  cap_drop          = ["ALL"]
  no_new_privileges = true
  read_only         = true
  tmpfs = {
    "/tmp"       = "rw,size=64m,mode=1777"
    "/workspace" = "rw,size=256m,uid=65534,gid=65534,mode=0700"
  }
  working_dir = "/workspace"

  memory     = 512
  cpus       = 1
  pids_limit = 128
  ulimits = {
    nofile = { soft = 1024, hard = 1024 }
  }

  timeouts = {
    create = "2m"
    delete = "1m"
  }
}
