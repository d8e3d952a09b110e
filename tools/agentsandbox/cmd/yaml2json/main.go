// Command yaml2json turns the YAML documents on its standard input into
// one JSON object per line, for scripts/cluster.sh to post agent-sandbox's
// CRDs to the API server without kubectl.
package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"

	"sigs.k8s.io/yaml"
)

func main() {
	in, err := io.ReadAll(bufio.NewReader(os.Stdin))
	if err != nil {
		fmt.Fprintln(os.Stderr, "yaml2json:", err)
		os.Exit(1)
	}
	for _, doc := range bytes.Split(in, []byte("\n---")) {
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		out, err := yaml.YAMLToJSON(doc)
		if err != nil {
			fmt.Fprintln(os.Stderr, "yaml2json:", err)
			os.Exit(1)
		}
		if string(out) == "null" {
			continue
		}
		fmt.Printf("%s\n", out)
	}
}
