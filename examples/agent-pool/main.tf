# A warm pool of isolated sandboxes that agents claim at run time, on a
# cluster that runs agent-sandbox with its extensions (see the Kubernetes
# guide), and the claims' isolation verdicts.
#
#   export TF_VAR_api_token=...   # the agents' API token
#   terraform apply -var kubeconfig=$HOME/.kube/config -var namespace=agents
#
# An agent then claims a sandbox, outside Terraform:
#
#   kubectl -n agents create -f - <<YAML
#   apiVersion: extensions.agents.x-k8s.io/v1beta1
#   kind: SandboxClaim
#   metadata: { name: task-42 }
#   spec: { warmPoolRef: { name: agents } }
#   YAML
#
# and runs its code in the claimed pod (kubectl exec), which has no network
# but loopback. `terraform destroy` is refused while claims hold sandboxes
# of the pool: delete them first.
terraform {
  required_providers {
    sandbox = {
      source = "tfsandbox/sandbox"
    }
  }
}

variable "kubeconfig" {
  description = "The cluster's kubeconfig (null: KUBECONFIG, then ~/.kube/config)."
  type        = string
  default     = null
}

variable "namespace" {
  description = "The namespace of the pool and its claims."
  type        = string
  default     = "default"
}

variable "image" {
  description = "The agents' image, which the cluster's nodes have or can pull."
  type        = string
  default     = "tfsandbox/busybox:latest"
}

variable "api_token" {
  description = "A secret every sandbox of the pool gets as API_TOKEN: kept in a Secret on the cluster, never in Terraform's plan or state."
  type        = string
  sensitive   = true
  ephemeral   = true
}

provider "sandbox" {
  kubernetes = {
    config_path   = var.kubeconfig
    namespace     = var.namespace
    runtime_class = "gvisor"
  }
}

resource "sandbox_pool" "agents" {
  name     = "agents"
  image    = var.image
  replicas = 3
  memory   = 128
  cpus     = 0.5
  env      = { ROLE = "agent" }

  # Write-only: raise env_wo_version to give the pool a new token.
  env_wo         = { API_TOKEN = var.api_token }
  env_wo_version = 1
}

data "sandbox_pool_claims" "agents" {
  pool = sandbox_pool.agents.id
}

output "pool" {
  value = {
    ready   = sandbox_pool.agents.ready_replicas
    claimed = sandbox_pool.agents.claimed_replicas
  }
}

output "claims_not_isolated" {
  description = "Claimed sandboxes that lost their isolation, by claim, with why."
  value = {
    for s in data.sandbox_pool_claims.agents.sandboxes : s.claim => s.reason if !s.isolated
  }
}
