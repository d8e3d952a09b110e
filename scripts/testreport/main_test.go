package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// events is a test binary's run as test2json reports it: one test that
// passed, one that failed with a subtest that passed, one skipped, and one
// still running when the binary died (a timeout's panic).
const events = `{"Action":"start","Package":"p"}
{"Action":"run","Package":"p","Test":"TestOK"}
{"Action":"output","Package":"p","Test":"TestOK","Output":"=== RUN   TestOK\n"}
{"Action":"output","Package":"p","Test":"TestOK","Output":"    ok_test.go:1: fine\n"}
{"Action":"pass","Package":"p","Test":"TestOK","Elapsed":1.5}
{"Action":"output","Package":"p","Test":"TestBad","Output":"    bad_test.go:1: broke\n"}
{"Action":"output","Package":"p","Test":"TestBad/sub","Output":"    bad_test.go:2: sub said\n"}
{"Action":"pass","Package":"p","Test":"TestBad/sub","Elapsed":0.2}
{"Action":"fail","Package":"p","Test":"TestBad","Elapsed":2}
{"Action":"output","Package":"p","Test":"TestSkip","Output":"    skip_test.go:1: not here\n"}
{"Action":"skip","Package":"p","Test":"TestSkip","Elapsed":0}
{"Action":"output","Package":"p","Test":"TestHung","Output":"    hung_test.go:1: waiting\n"}
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
	want := "local\tp\tTestOK\tpass\t1.5\nlocal\tp\tTestBad\tfail\t2.0\nlocal\tp\tTestSkip\tskip\t0.0\n"
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
