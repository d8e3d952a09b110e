# The engine the docker CLI would use: DOCKER_CONTEXT, DOCKER_HOST (with
# DOCKER_TLS_VERIFY and DOCKER_CERT_PATH), the current docker context, or
# the local socket.
provider "sandbox" {}

# A context made with `docker context create build-0 --docker host=...`.
provider "sandbox" {
  alias   = "build_0"
  context = "build-0"
}

# Podman's Docker-compatible API on its socket
# (`podman system service unix:///run/podman/podman.sock`).
provider "sandbox" {
  alias = "podman"
  host  = "unix:///run/podman/podman.sock"
}

# A remote engine over TLS with client certificates: a directory in the
# DOCKER_CERT_PATH layout (ca.pem, cert.pem, key.pem)...
provider "sandbox" {
  alias     = "build_1"
  host      = "tcp://build-1.example.com:2376"
  cert_path = "${path.module}/certs/build-1"
}

# ...or the same material inline, for example from a secrets manager.
variable "engine_tls" {
  type      = object({ ca = string, cert = string, key = string })
  sensitive = true
}

provider "sandbox" {
  alias    = "build_2"
  host     = "tcp://build-2.example.com:2376"
  ca_pem   = var.engine_tls.ca
  cert_pem = var.engine_tls.cert
  key_pem  = var.engine_tls.key
}

# A remote engine over SSH, with your ~/.ssh/config, known_hosts,
# identities and ssh-agent; the URL's path names the engine's socket when it
# is not /var/run/docker.sock.
provider "sandbox" {
  alias    = "build_3"
  host     = "ssh://deploy@build-3.example.com/run/podman/podman.sock"
  ssh_opts = ["-i", "~/.ssh/sandbox_deploy"]
}
