# Take an agent's result out of its workspace without an exec: read through
# the sandbox that mounts the volume, bounded and kept out of the output.
data "sandbox_file" "result" {
  container = sandbox_container.agent.id
  path      = "/workspace/result.json"
  max_size  = 65536
  sensitive = true
}

output "result" {
  value     = jsondecode(data.sandbox_file.result.sensitive_content)
  sensitive = true
}
