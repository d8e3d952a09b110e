# An image for agent sandboxes, built on the engine from ./agent, offline:
# FROM an image already on the engine. Editing a file in ./agent rebuilds
# it, and the sandboxes that run it are replaced.
resource "sandbox_image" "agent" {
  name    = "agents/python-tools:1"
  context = "${path.module}/agent"

  build_args = {
    TOOLS_VERSION = "1.4"
  }
  labels = {
    team = "platform"
  }
}

resource "sandbox_container" "agent" {
  name         = "agent-sandbox"
  image        = sandbox_image.agent.image_id
  network_mode = "none"
}
