// Package faults holds the fault tests that kill and restart the real local
// engine. They run alone, before the other acceptance tests (`make faults`,
// which `make test` runs first), and only with SANDBOX_FAULTS=1: killing the
// engine under tests running beside them would fail those.
package faults
