# A setup step run once in an isolated sandbox during apply. It runs again
# when the script changes (triggers) or the sandbox is replaced, never
# during plan; a non-zero exit fails the apply with the end of its output.
resource "sandbox_container" "agent" {
  name         = "agent-sandbox"
  image        = "tfsandbox/busybox:latest"
  network_mode = "none"
  files = {
    "/opt/setup.sh" = { content = "#!/bin/sh\nmkdir -p /work && echo ready > /work/state && echo set up\n", mode = "0755" }
  }
}

resource "sandbox_exec" "setup" {
  container_id = sandbox_container.agent.id
  command      = ["/opt/setup.sh"]
  env          = { TASK_ID = "42" }
  timeout      = "1m"
  triggers = {
    script = sandbox_container.agent.files_sha256["/opt/setup.sh"]
  }
}

output "setup_output" {
  value = sandbox_exec.setup.stdout
}
