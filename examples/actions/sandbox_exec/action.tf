# Run a command in a sandbox on demand:
#   terraform apply -invoke=action.sandbox_exec.smoke_test
# or after the sandbox is created, from its lifecycle:
#   lifecycle {
#     action_trigger {
#       events  = [after_create]
#       actions = [action.sandbox_exec.smoke_test]
#     }
#   }
action "sandbox_exec" "smoke_test" {
  config {
    container_id = sandbox_container.agent.id
    command      = ["sh", "-c", "python3 -c 'print(1 + 1)' && ls /workspace"]
    timeout      = "30s"
  }
}

# A secret reaches the command through a sensitive value, which the plan
# hides; sensitive_output keeps what it prints out of the apply's output.
variable "registry_token" {
  type      = string
  sensitive = true
}

action "sandbox_exec" "login" {
  config {
    container_id     = sandbox_container.agent.id
    command          = ["sh", "-c", "printf '%s' \"$TOKEN\" > /workspace/.token"]
    env_wo           = { TOKEN = var.registry_token }
    sensitive_output = true
  }
}
