# A token minted inside one sandbox, handed to another as a write-only
# secret: it is never written to the plan or the state. Terraform opens
# the ephemeral resource at every plan and apply, so its command must have
# no side effects (here it only reads a file).
ephemeral "sandbox_exec" "token" {
  container_id = sandbox_container.issuer.id
  command      = ["cat", "/run/issuer/token"]
}

resource "sandbox_container" "worker" {
  name         = "worker"
  image        = "tfsandbox/busybox:latest"
  network_mode = "none"

  env_wo         = { API_TOKEN = trimspace(ephemeral.sandbox_exec.token.stdout) }
  env_wo_version = 1
}
