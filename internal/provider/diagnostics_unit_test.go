package provider_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// Every diagnostic the provider can give (each call that adds an error or
// a warning, in every production file) says what to do next: its detail's
// text, as the source writes it (its literals, with what a call fills in
// left out), holds a next step. A detail the source does not write (an
// error's own text, a backend's refusal) is listed in dynamicDetails, with
// where its next step comes from. The test reads the source, so that a
// diagnostic added anywhere is held to it without a table to keep.

// diagnosticCalls are the calls that make a diagnostic, and the position
// of their summary among their arguments (the detail follows it).
var diagnosticCalls = map[string]int{
	"AddError": 0, "AddWarning": 0, "AddAttributeError": 1, "AddAttributeWarning": 1,
	"NewErrorDiagnostic": 0, "NewWarningDiagnostic": 0,
	"NewAttributeErrorDiagnostic": 1, "NewAttributeWarningDiagnostic": 1,
}

// nextStep is a next step in a detail: an imperative at a sentence's or
// clause's start ("Set ...", "...; remove ...", "... or use ..."), what the
// provider or Terraform does next on its own ("The next apply replaces
// it"), or a bug to report.
var nextStep = regexp.MustCompile(`⟨next step⟩|(?:^|[.:;!?)]\s+|\n|\(|%[svqd] |, |\bor |\bthen |\bto fix it, )` +
	`(?:[Ss]et|[Rr]emove|[Uu]se|[Rr]un|[Cc]heck|[Mm]ake|[Ll]eave|[Aa]dd|[Gg]ive|[Nn]ame|[Ss]tart|[Pp]in|[Bb]uild|` +
	`[Ii]nstall|[Mm]irror|[Ii]mport|[Rr]etry|[Ww]ait|[Cc]hange|[Mm]ove|[Dd]elete|[Uu]pgrade|[Aa]sk|[Aa]pply|[Ff]ree|` +
	`[Rr]aise|[Ll]ower|[Rr]ename|[Rr]egister|[Ss]top|[Rr]estart|[Ff]ix|[Kk]eep|[Mm]ount|[Pp]oint|[Pp]ass|[Pp]ut|` +
	`[Ww]rite|[Cc]reate|[Cc]hoose|[Ll]et|[Gg]rant|[Aa]llow|[Tt]ry|[Rr]eplace|[Uu]nset|[Rr]educe|[Ii]ncrease|` +
	`[Ss]plit|[Ll]ist|[Rr]ead|[Ss]ee|[Dd]rop|[Tt]ake|[Ss]witch|[Pp]lace|[Rr]ecreate|[Ee]xtend|[Ll]engthen|[Cc]opy|` +
	`[Ff]ree up|[Uu]nlock|[Rr]aise|[Dd]ecrease|[Ee]nable|[Dd]isable|[Pp]ull|[Pp]ush|[Tt]ag|[Rr]e-run|[Rr]erun|` +
	`[Pp]lan|[Ss]eed|[Ss]ay|[Cc]orrect|[Qq]uery|[Hh]ave|[Gg]o|[Ll]ook|[Cc]onfigure|[Ss]hare|[Aa]void|[Bb]ring|[Mm]ark|[Ss]hrink|[Gg]row|[Qq]uote)\b` +
	`|\b(?:[Tt]he|[Tt]his|[Ii]ts|[Ee]ach|[Ee]very|[Aa]) next (?:apply|plan|refresh)|\b[Tt]he plan (?:replaces|creates|` +
	`takes|starts|makes|shows|reads|records)|report it|\bapply (?:again|retries)\b`)

// dynamicDetails are the diagnostics whose detail the source does not
// write, by file, function and the detail's expression, and where their
// next step comes from.
var dynamicDetails = map[string]string{
	"internal/framework/base/base.go:Refusals:r.Detail": "a backend's refusal (engine.Refusal), whose Detail this test " +
		"reads where the backend writes it",
	"internal/provider/provider.go:Configure:unreachableDetail(client.Endpoint(), err)": "unreachableDetail, which ends with the checks to make, or " +
		"the connection's own advice (TestAccProvider_unreachable*)",
	"internal/resources/containerresource/create.go:startAsPlanned:err.Error()": "awaitSnapshots, whose error ends with " +
		"the fix it is given (Raise timeouts.create)",
	"internal/resources/containerresource/update.go:update:err.Error()": "awaitSnapshots, whose error ends with the " +
		"fix it is given (Apply again)",
	"internal/resources/poolresource/lifecycle.go:pools:err.Error()": "base.Ability, whose error says the plan " +
		"should have refused and to report it",
	"internal/resources/poolresource/lifecycle.go:create:f.Detail": "a backend's refusal (engine.Refusal), as for " +
		"base.Refusals",
	"internal/resources/poolresource/resource.go:ModifyPlan:engine.Brief(err) + \".\"": "engine.Pools.PoolsServed, " +
		"whose error names the API to install or the provider block to remove",
	"internal/resources/snapshotresource/resource.go:ModifyPlan:why": "the backend's SnapshotRefusal, which names " +
		"the builds that hold the helper (volumetar.NoHelperError)",
	"internal/resources/volumeresource/lifecycle.go:create:nameTakenDetail(taken, r.Client)": "nameTakenDetail, which ends with how to free " +
		"the name or choose another",
}

func TestEveryDiagnosticSaysWhatToDoNext(t *testing.T) {
	root := filepath.Join("..", "..")
	var problems []string
	seen := map[string]bool{}
	err := filepath.WalkDir(filepath.Join(root, "internal"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") ||
			strings.Contains(path, string(filepath.Separator)+"acctest"+string(filepath.Separator)) {
			return err
		}
		problems = append(problems, checkFile(t, root, path, seen)...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for key := range dynamicDetails {
		if !seen[key] {
			problems = append(problems, key+": listed in dynamicDetails, and no longer gives a diagnostic there")
		}
	}
	sort.Strings(problems)
	for _, p := range problems {
		t.Error(p)
	}
	t.Logf("%d diagnostics read", len(seen))
}

// strayBackquotes says whether a text quotes code badly: an empty pair, or
// a backquote without its partner (a list joined with "`, `" whose first
// or last quote was left out).
func strayBackquotes(s string) bool {
	return strings.Contains(s, "``") || strings.Count(s, "`")%2 == 1
}

// No generated page quotes code badly either: outside fenced blocks, each
// paragraph of docs/ has its backquotes in pairs, none empty.
func TestDocsHaveNoStrayBackquotes(t *testing.T) {
	err := filepath.WalkDir(filepath.Join("..", "..", "docs"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".md") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		fenced := false
		var paragraph []string
		check := func() {
			if text := strings.Join(paragraph, "\n"); strayBackquotes(text) {
				t.Errorf("%s: a stray backquote in:\n%s", path, text)
			}
			paragraph = paragraph[:0]
		}
		for _, line := range strings.Split(string(data), "\n") {
			switch {
			case strings.HasPrefix(strings.TrimSpace(line), "```"):
				check()
				fenced = !fenced
			case fenced:
			case strings.TrimSpace(line) == "":
				check()
			default:
				paragraph = append(paragraph, line)
			}
		}
		check()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// checkFile checks the diagnostics of one file.
func checkFile(t *testing.T, root, path string, seen map[string]bool) []string {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	consts := stringConsts(filepath.Dir(path))
	rel, _ := filepath.Rel(root, path)
	var problems []string
	for _, decl := range f.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		ast.Inspect(fn.Body, func(node ast.Node) bool {
			if lit, ok := node.(*ast.CompositeLit); ok {
				problems = append(problems, checkRefusal(fset, lit, consts)...)
				return true
			}
			call, ok := node.(*ast.CallExpr)
			if !ok {
				return true
			}
			if name := calleeName(call.Fun); name == "refuse" && len(call.Args) >= 2 {
				// A backend's rules build their refusals with a refuse(...,
				// summary, detail) of their own.
				problems = append(problems, checkText(fset, call, "the refusal", text(call.Args[len(call.Args)-2], consts),
					text(call.Args[len(call.Args)-1], consts))...)
				return true
			}
			at, ok := diagnosticCalls[calleeName(call.Fun)]
			if !ok || len(call.Args) < at+2 {
				return true
			}
			key := rel + ":" + fn.Name.Name + ":" + types.ExprString(call.Args[at+1])
			seen[key] = true
			summary, detail := text(call.Args[at], consts), text(call.Args[at+1], consts)
			where := fset.Position(call.Pos()).String()
			written := writtenText(detail)
			switch {
			case !written && dynamicDetails[key] == "":
				problems = append(problems, where+" ("+key+"): its detail is not written in the source; "+
					"write its next step there, or list it in dynamicDetails with where its next step comes from")
			case written && !nextStep.MatchString(summary+". "+detail):
				problems = append(problems, where+": no next step in "+strconv.Quote(summary)+": "+
					strconv.Quote(detail))
			case strayBackquotes(summary) || strayBackquotes(detail):
				problems = append(problems, where+": a stray backquote in "+strconv.Quote(summary+": "+detail))
			}
			return true
		})
	}
	return problems
}

// checkRefusal checks a backend's refusal (an engine.Refusal literal):
// its Detail, where the source writes it, names the fix.
func checkRefusal(fset *token.FileSet, lit *ast.CompositeLit, consts map[string]string) []string {
	if name := calleeName(lit.Type); name != "Refusal" {
		return nil
	}
	var summary, detail string
	for _, elt := range lit.Elts {
		kv, ok := elt.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		switch calleeName(kv.Key) {
		case "Summary":
			summary = text(kv.Value, consts)
		case "Detail":
			detail = text(kv.Value, consts)
		}
	}
	return checkText(fset, lit, "the refusal", summary, detail)
}

// checkText checks a summary and detail the source writes.
func checkText(fset *token.FileSet, at ast.Node, what, summary, detail string) []string {
	if !writtenText(detail) || nextStep.MatchString(summary+". "+detail) {
		return nil
	}
	return []string{fset.Position(at.Pos()).String() + ": no next step in " + what + " " + strconv.Quote(summary) +
		": " + strconv.Quote(detail)}
}

// writtenText says whether the source writes words of a text, beyond
// what calls fill in and the punctuation around them.
func writtenText(s string) bool { return regexp.MustCompile(`[A-Za-z]{3,}`).MatchString(s) }

// calleeName is the name of what a call calls: AddError of
// resp.Diagnostics.AddError, NewErrorDiagnostic of diag.NewErrorDiagnostic.
func calleeName(fun ast.Expr) string {
	switch f := fun.(type) {
	case *ast.SelectorExpr:
		return f.Sel.Name
	case *ast.Ident:
		return f.Name
	}
	return ""
}

// text is what the source writes of a string expression: its literals and
// the constants it names, with every value a call or variable fills in as
// "…"; a format's verbs stay. A value made by a function that gives a next
// step (engine.NextStep, a name ending in NextStep or Advice) or held in a
// variable named for one (next, fix, advice) is "⟨next step⟩": those
// functions' own tests hold what they say.
func text(e ast.Expr, consts map[string]string) string {
	switch x := e.(type) {
	case *ast.BasicLit:
		if s, err := strconv.Unquote(x.Value); err == nil {
			return s
		}
	case *ast.BinaryExpr:
		if x.Op == token.ADD {
			return text(x.X, consts) + text(x.Y, consts)
		}
	case *ast.ParenExpr:
		return text(x.X, consts)
	case *ast.Ident:
		if s, ok := consts[x.Name]; ok {
			return s
		}
		if x.Name == "next" || x.Name == "fix" || x.Name == "advice" {
			return "⟨next step⟩"
		}
	case *ast.CallExpr:
		name := calleeName(x.Fun)
		if strings.HasSuffix(name, "NextStep") || strings.HasSuffix(name, "Advice") {
			return "⟨next step⟩"
		}
		if name == "Redact" && len(x.Args) == 1 { // secrets.Redact keeps the text, less the secrets
			return text(x.Args[0], consts)
		}
		if (name == "Sprintf" || name == "Errorf") && len(x.Args) > 0 {
			s := text(x.Args[0], consts)
			for _, arg := range x.Args[1:] {
				if t := text(arg, consts); strings.Contains(t, "⟨next step⟩") {
					s += " " + t
				}
			}
			return s
		}
	}
	return "…"
}

// stringConsts are the string constants of the package in dir, by name.
func stringConsts(dir string) map[string]string {
	consts := map[string]string{}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, e.Name()), nil, 0)
		if err != nil {
			continue
		}
		for _, decl := range f.Decls {
			g, ok := decl.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, spec := range g.Specs {
				vs, ok := spec.(*ast.ValueSpec)
				if !ok {
					continue
				}
				for i, name := range vs.Names {
					if i < len(vs.Values) {
						if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
							consts[name.Name], _ = strconv.Unquote(lit.Value)
						}
					}
				}
			}
		}
	}
	return consts
}
