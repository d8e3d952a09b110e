# The sandboxes agents hold from a pool, and any that lost their isolation
# (a claim can add annotations to its pod, such as another network).
data "sandbox_pool_claims" "agents" {
  pool = sandbox_pool.agents.id
}

output "claims_not_isolated" {
  value = {
    for s in data.sandbox_pool_claims.agents.sandboxes : s.claim => s.reason if !s.isolated
  }
}
