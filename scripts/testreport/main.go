// Command testreport reads one test binary's events as `go tool test2json`
// writes them and prints what `go test` would have printed of them: the
// output of every test that did not pass (failed, or still running when
// the binary died) and the package's own output, or with -v everything.
// With -times FILE it appends a line per top-level test to FILE: the pass,
// the package, the test, its result and its seconds, tab-separated, so
// that the suite's slowest tests can be found (scripts/testacc.sh).
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// event is one line of test2json's output.
type event struct {
	Action  string
	Package string
	Test    string
	Elapsed float64
	Output  string
}

func main() {
	verbose := flag.Bool("v", false, "print every test's output")
	times := flag.String("times", "", "append each top-level test's result and seconds to this file")
	pass := flag.String("pass", "", "the pass's name, for -times")
	flag.Parse()
	if err := report(os.Stdin, os.Stdout, *verbose, *times, *pass); err != nil {
		fmt.Fprintln(os.Stderr, "testreport:", err)
		os.Exit(1)
	}
}

// report reads events from in and writes to out.
func report(in io.Reader, out io.Writer, verbose bool, times, pass string) error {
	var order []string              // tests (and "" for the package) in the order they first wrote
	output := map[string][]string{} // by test
	result := map[string]string{}   // the last result of each test
	var rows []string
	scanner := bufio.NewScanner(in)
	scanner.Buffer(make([]byte, 1<<20), 1<<26)
	for scanner.Scan() {
		line := scanner.Bytes()
		var e event
		if err := json.Unmarshal(line, &e); err != nil || e.Action == "" {
			// Not an event (a crash of test2json's own): kept as the
			// package's output.
			e = event{Action: "output", Output: string(line) + "\n"}
		}
		switch e.Action {
		case "output":
			if _, seen := output[e.Test]; !seen {
				order = append(order, e.Test)
			}
			output[e.Test] = append(output[e.Test], e.Output)
		case "pass", "fail", "skip":
			result[e.Test] = e.Action
			if e.Test != "" && !strings.Contains(e.Test, "/") {
				rows = append(rows, fmt.Sprintf("%s\t%s\t%s\t%s\t%.1f\n", pass, e.Package, e.Test, e.Action, e.Elapsed))
			}
		}
	}
	if err := scanner.Err(); err != nil {
		return err
	}
	w := bufio.NewWriter(out)
	for _, test := range order {
		if !verbose && test != "" && !failed(test, result) {
			continue
		}
		for _, s := range output[test] {
			if !verbose && test == "" && isSummary(s) {
				continue
			}
			_, _ = w.WriteString(s)
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if times == "" || len(rows) == 0 {
		return nil
	}
	f, err := os.OpenFile(times, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteString(strings.Join(rows, ""))
	return errors.Join(err, f.Close())
}

// failed says whether test, or the test it is a subtest of, did not pass:
// a subtest that passed inside a test that failed is shown, as `go test`
// shows it.
func failed(test string, result map[string]string) bool {
	for t := test; ; {
		if r := result[t]; r != "pass" && r != "skip" {
			return true
		}
		i := strings.LastIndex(t, "/")
		if i < 0 {
			return false
		}
		t = t[:i]
	}
}

// isSummary is a line of the package's own that `go test` prints only with
// -v: the binary's closing PASS.
func isSummary(s string) bool {
	return s == "PASS\n" || strings.HasPrefix(s, "=== ")
}
