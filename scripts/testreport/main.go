// Command testreport reads one test binary's events as `go tool test2json`
// writes them and prints what `go test` would have printed of them: the
// output of every test that did not pass (failed, or still running when
// the binary died) and the package's own output, or with -v everything.
// With -times FILE it appends a line per top-level test to FILE: the pass,
// the package, the test, its result and its seconds, tab-separated, so
// that the suite's slowest tests can be found (scripts/testacc.sh), and
// for a test that failed the start of its last message, which the end of
// CI's log shows.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
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
				row := fmt.Sprintf("%s\t%s\t%s\t%s\t%.1f", pass, e.Package, e.Test, e.Action, e.Elapsed)
				if e.Action == "fail" {
					row += "\t" + lastMessage(e.Test, order, output, result)
				}
				rows = append(rows, row+"\n")
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

// message is the start of a line a test's t.Error or t.Fatal wrote.
var message = regexp.MustCompile(`^\s+([\w.-]+\.go):\d+: `)

// engineURL is the start of an engine's address in a client's message, a
// socket's path escaped into the host (http://%2Frun%2F...%2Fpodman.sock):
// long, and the same in every message, it would take the room of the route
// and the engine's own words after it. A socket named in the provider's
// own words (unix:///run/user/1001/podman/podman.sock) is shortened too.
var engineURL = regexp.MustCompile(`https?://%2F[^/\s]*|unix://[^\s]*\.sock`)

// overrides is the warning Terraform prints on every command run with
// dev_overrides, as every test's does: in a message, it would take the
// room of the error after it.
var overrides = regexp.MustCompile(`Warning: Provider development overrides are in effect.*?published releases\.`)

// decoration is what Terraform's output frames diagnostics with: its
// colours' escapes and the box's edges.
var decoration = regexp.MustCompile("\x1b\\[[0-9;]*m|[│╷╵]")

// lastMessage is the last message test or one of its subtests that did
// not pass wrote from a _test.go file (t.Fatal's is the last; a helper's
// log, such as a probe run again, and a t.Logf before the failure are
// seldom why a test failed), or else from any file, with the lines that
// continue it, on one line, without Terraform's dev_overrides warning and
// its colours, the engine's socket shortened to <socket>, and cut to its
// first 300 and last 700 characters (an engine's answer, the cause, comes
// after the provider's words).
func lastMessage(test string, order []string, output map[string][]string, result map[string]string) string {
	for _, fromTest := range []bool{true, false} {
		if text, ok := lastMessageFrom(test, order, output, result, fromTest); ok {
			return text
		}
	}
	return "(no message: see the test's output above)"
}

func lastMessageFrom(test string, order []string, output map[string][]string, result map[string]string,
	fromTest bool) (string, bool) {
	found, ok := "", false
	for _, name := range order {
		if name != test && (!strings.HasPrefix(name, test+"/") || result[name] == "pass" || result[name] == "skip") {
			continue
		}
		lines := output[name]
		for i, s := range lines {
			m := message.FindStringSubmatch(s)
			if m == nil || (fromTest && !strings.HasSuffix(m[1], "_test.go")) {
				continue
			}
			text := strings.TrimSpace(s)
			for _, more := range lines[i+1:] {
				if !strings.HasPrefix(more, "        ") || message.MatchString(more) {
					break
				}
				text += " " + strings.TrimSpace(more)
			}
			found, ok = text, true
		}
	}
	text := strings.Join(strings.Fields(decoration.ReplaceAllString(found, " ")), " ")
	text = engineURL.ReplaceAllString(overrides.ReplaceAllString(text, ""), "<socket>")
	text = strings.Join(strings.Fields(text), " ")
	if len(text) > 1000 {
		text = text[:300] + " ... " + text[len(text)-700:]
	}
	return text, ok
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
