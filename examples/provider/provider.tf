# The local engine, or DOCKER_HOST when it is set.
provider "sandbox" {}

# An explicit engine address.
provider "sandbox" {
  alias = "remote"
  host  = "tcp://127.0.0.1:2375"
}
