# A warm pool of isolated sandboxes on a cluster that runs agent-sandbox.
# Agents claim one at run time with a SandboxClaim whose warmPoolRef names
# the pool; each gets no network but loopback, no service-account token and
# no capability, under the provider's own deny-all NetworkPolicy.
provider "sandbox" {
  kubernetes = {
    namespace = "agents"
  }
}

resource "sandbox_pool" "agents" {
  name     = "python-agents"
  image    = "registry.example.com/agents/python:3.13"
  replicas = 5
  memory   = 512
  cpus     = 1
  env      = { PYTHONUNBUFFERED = "1" }
  files = {
    "/etc/agent/rules.md" = { content = "Work only in /tmp.\n" }
  }

  # Sent at create, kept in a Secret owned by the pool, never in the state.
  env_wo         = { MODEL_API_KEY = var.model_api_key }
  env_wo_version = 1
}

variable "model_api_key" {
  type      = string
  sensitive = true
  ephemeral = true
}
