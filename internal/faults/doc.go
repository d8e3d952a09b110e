// Package faults holds the fault tests that kill and restart an engine:
// the throwaway one scripts/engines.sh starts for them (its own data root,
// socket, pid file, containerd namespace and bridge), never the machine's.
// They run alone, before the other acceptance tests (`make faults`, which
// `make testacc` runs first), and only with SANDBOX_FAULTS=1.
package faults
