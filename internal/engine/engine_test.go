package engine

import (
	"errors"
	"strings"
	"testing"
)

func TestOwnershipLabels(t *testing.T) {
	labels := OwnershipLabels("sandbox_container")
	if !ManagedBy(labels) || labels[LabelResourceType] != "sandbox_container" {
		t.Errorf("labels %v do not prove ownership", labels)
	}
	for _, other := range []map[string]string{nil, {LabelManagedBy: "someone-else"}, {"team": "x"}} {
		if ManagedBy(other) {
			t.Errorf("labels %v were taken as this provider's", other)
		}
	}
}

func TestUpdatesLimitsInPlace(t *testing.T) {
	f := Facts{DefaultRuntime: "runc", Runtimes: map[string]string{"runc": "runc", "runsc": "/usr/bin/runsc", "gvisor": "/opt/bin/runsc"}}
	for runtime, want := range map[string]bool{"": true, "runc": true, "runsc": false, "gvisor": false} {
		if got := f.UpdatesLimitsInPlace(runtime); got != want {
			t.Errorf("runtime %q: in place %v, want %v", runtime, got, want)
		}
	}
	f.DefaultRuntime = "runsc"
	if f.UpdatesLimitsInPlace("") {
		t.Error("the default runtime runsc was taken for one that updates in place")
	}
}

func TestBriefKeepsOneSentence(t *testing.T) {
	usage := "Error response from daemon: runsc did not terminate successfully: exit status 128\nUsage: runsc <flags> <subcommand> <subcommand args>\n\nSubcommands:\n\thelp\n"
	got := Brief(errors.New(usage))
	if strings.Contains(got, "Usage") || !strings.HasPrefix(got, "Error response from daemon: runsc did not terminate successfully: exit status 128") ||
		!strings.Contains(got, "engine's log") {
		t.Errorf("brief %q", got)
	}
	if got := Brief(errors.New("no such image")); got != "no such image" {
		t.Errorf("a one-line error changed: %q", got)
	}
	if got := Brief(errors.New(strings.Repeat("x", 1000))); len(got) > maxBrief+100 {
		t.Errorf("a long line kept %d characters", len(got))
	}
}

// A name a sandbox chose reaches the terminal escaped, whatever it holds.
func TestBriefEscapesWhatATerminalActsOn(t *testing.T) {
	err := errors.New("lstat /seed/\x1b]0;owned\x07\u202eevil\xff: no such file\r\nsecond")
	if got, want := Brief(err), `lstat /seed/\x1b]0;owned\a\u202eevil\xff: no such file\r (the engine's log has the runtime's full output)`; got != want {
		t.Errorf("Brief\n  %s\nwant\n  %s", got, want)
	}
	if got, want := Printable(err), "lstat /seed/\\x1b]0;owned\\a\\u202eevil\\xff: no such file\\r\nsecond"; got != want {
		t.Errorf("Printable\n  %q\nwant\n  %q", got, want)
	}
}
