package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// events is a test binary's run as test2json reports it: one test that
// passed, one that failed (a helper's log, a message, and a last one that
// quotes Terraform's output) with a subtest that passed, one skipped, and
// one still running when the binary died (a timeout's panic).
const events = `{"Action":"start","Package":"p"}
{"Action":"run","Package":"p","Test":"TestOK"}
{"Action":"output","Package":"p","Test":"TestOK","Output":"=== RUN   TestOK\n"}
{"Action":"output","Package":"p","Test":"TestOK","Output":"    ok_test.go:1: fine\n"}
{"Action":"pass","Package":"p","Test":"TestOK","Elapsed":1.5}
{"Action":"output","Package":"p","Test":"TestBad","Output":"=== RUN   TestBad\n"}
{"Action":"output","Package":"p","Test":"TestBad","Output":"    helper.go:9: asked again\n"}
{"Action":"output","Package":"p","Test":"TestBad","Output":"    bad_test.go:1: broke\n"}
{"Action":"output","Package":"p","Test":"TestBad","Output":"        \tbecause http://%2Frun%2Fuser%2F1001%2Fpodman%2Fpodman.sock/v1.41/exec/1/json said so\n"}
{"Action":"output","Package":"p","Test":"TestBad","Output":"    bad_test.go:3: the apply failed:\n"}
{"Action":"output","Package":"p","Test":"TestBad","Output":"        \u001b[33m╷\u001b[0m\u001b[0m\n"}
{"Action":"output","Package":"p","Test":"TestBad","Output":"        \u001b[33m│\u001b[0m Warning: Provider development overrides are in effect\n"}
{"Action":"output","Package":"p","Test":"TestBad","Output":"        │ The following provider development overrides are set: /tmp/x\n"}
{"Action":"output","Package":"p","Test":"TestBad","Output":"        │ and applying changes may cause the state to become incompatible with\n"}
{"Action":"output","Package":"p","Test":"TestBad","Output":"        │ published releases.\n"}
{"Action":"output","Package":"p","Test":"TestBad","Output":"        ╵\n"}
{"Action":"output","Package":"p","Test":"TestBad","Output":"        │ Error: boom at http://%2Frun%2Fuser%2F1001%2Fpodman%2Fpodman.sock/v1.41/build\n"}
{"Action":"output","Package":"p","Test":"TestBad/sub","Output":"    bad_test.go:2: sub said\n"}
{"Action":"pass","Package":"p","Test":"TestBad/sub","Elapsed":0.2}
{"Action":"fail","Package":"p","Test":"TestBad","Elapsed":2}
{"Action":"output","Package":"p","Test":"TestSkip","Output":"    skip_test.go:1: not here\n"}
{"Action":"skip","Package":"p","Test":"TestSkip","Elapsed":0}
{"Action":"output","Package":"p","Test":"TestHung","Output":"    hung.go:1: waiting\n"}
{"Action":"output","Package":"p","Output":"panic: test timed out after 20m0s\n"}
{"Action":"output","Package":"p","Output":"PASS\n"}
not an event
{"Action":"fail","Package":"p","Elapsed":1200}
`

func TestReportShowsWhatDidNotPass(t *testing.T) {
	t.Parallel()
	times := filepath.Join(t.TempDir(), "times.tsv")
	var out bytes.Buffer
	if err := report(strings.NewReader(events), &out, false, times, "local"); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{"broke", "sub said", "waiting", "panic: test timed out", "not an event"} {
		if !strings.Contains(got, want) {
			t.Errorf("the report lacks %q:\n%s", want, got)
		}
	}
	for _, unwanted := range []string{"fine", "not here", "PASS\n"} {
		if strings.Contains(got, unwanted) {
			t.Errorf("the report shows %q, of a test that did not fail:\n%s", unwanted, got)
		}
	}
	rows, err := os.ReadFile(times)
	if err != nil {
		t.Fatal(err)
	}
	want := "local\tp\tTestOK\tpass\t1.5\nlocal\tp\tTestBad\tfail\t2.0\tbad_test.go:3: the apply failed: Error: boom at <socket>/v1.41/build\nlocal\tp\tTestSkip\tskip\t0.0\n"
	if string(rows) != want {
		t.Errorf("times:\n%s\nwant:\n%s", rows, want)
	}
}

func TestReportVerboseShowsEverything(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	if err := report(strings.NewReader(events), &out, true, "", ""); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"fine", "broke", "not here", "waiting", "PASS\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the verbose report lacks %q:\n%s", want, out.String())
		}
	}
}

// A long message keeps its end, where the engine's answer is, and the
// provider's socket is shortened.
func TestLastMessageKeepsTheCause(t *testing.T) {
	t.Parallel()
	long := "    x_test.go:9: Inspecting container on the engine at unix:///run/user/1001/podman/podman.sock failed: " +
		strings.Repeat("words ", 300) + "Error response from daemon: the cause"
	got := lastMessage("T", []string{"T"}, map[string][]string{"T": {long}}, map[string]string{"T": "fail"})
	if !strings.HasSuffix(got, "the cause") || !strings.Contains(got, "at <socket> failed") || len(got) > 1010 {
		t.Errorf("lastMessage = %q (%d characters)", got, len(got))
	}
}
