package imageresource_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/client"
	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

func attr(name string) tfjsonpath.Path { return tfjsonpath.New(name) }

// buildContext writes a build context into a new directory: a Dockerfile
// FROM the test image, labelled with the test's name (so that no other
// test builds the same image), and the given files.
func buildContext(t *testing.T, name, dockerfile string, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	files["Dockerfile"] = fmt.Sprintf("FROM %s\nLABEL test.name=%q\n%s", acctest.TestImage, name, dockerfile)
	for name, content := range files {
		acctest.Write(t, filepath.Join(dir, name), content)
	}
	return dir
}

// imageConfig is a sandbox_image "test" of dir, and an isolated sandbox
// running it.
func imageConfig(name, dir, extra string) string {
	return fmt.Sprintf(`
resource "sandbox_image" "test" {
  name    = "%[1]s:1"
  context = %[2]q
%[3]s
}

resource "sandbox_container" "test" {
  name         = %[1]q
  image        = sandbox_image.test.image_id
  network_mode = "none"
}
`, name, dir, extra)
}

// expectFile checks that the sandbox sees path with content.
func expectFile(t *testing.T, path, content string) statecheck.StateCheck {
	return acctest.ExpectInside(t, "sandbox_container.test", func(ctx context.Context, id string) error {
		got, err := acctest.ExecOK(ctx, t, id, "cat", path)
		if err != nil || strings.TrimSpace(got) != content {
			return fmt.Errorf("%s = %q (%s), want %q", path, got, acctest.ErrText(err), content)
		}
		return nil
	})
}

// An image is built offline from a local context with COPY and RUN, and a
// sandbox runs it. Only a changed file of the context rebuilds it (a file
// .dockerignore excludes, or a touched one, does not); a rebuilt image
// replaces the sandbox; an image removed behind Terraform's back is built
// again, and a tag moved to another image is put back in place.
func TestAccImage_buildAndRebuild(t *testing.T) {
	name := acctest.ImageName(t)
	dir := buildContext(t, name, "COPY greeting.txt /etc/greeting\nRUN echo built > /etc/built\n", map[string]string{
		"greeting.txt":  "hello",
		"notes.txt":     "left out",
		".dockerignore": "notes.txt\n",
	})
	config := imageConfig(name, dir, "")
	tag := name + ":1"
	sameImage := statecheck.CompareValue(compare.ValuesSame())
	newImage := statecheck.CompareValue(compare.ValuesDiffer())
	noChange := resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}
	rebuild := resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
		plancheck.ExpectResourceAction(addr, plancheck.ResourceActionReplace),
		plancheck.ExpectResourceAction("sandbox_container.test", plancheck.ResourceActionReplace),
	}}
	acctest.Test(t, []resource.TestStep{{
		Config: config,
		ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectKnownValue(addr, attr("image_id"), knownvalue.StringRegexp(regexp.MustCompile(`^sha256:[0-9a-f]{64}$`))),
			statecheck.ExpectKnownValue(addr, attr("context_digest"), knownvalue.StringRegexp(regexp.MustCompile(`^sha256:[0-9a-f]{64}$`))),
			statecheck.CompareValuePairs(addr, attr("image_id"), "sandbox_container.test", attr("image_id"), compare.ValuesSame()),
			sameImage.AddStateValue(addr, attr("image_id")),
			newImage.AddStateValue(addr, attr("image_id")),
			expectFile(t, "/etc/greeting", "hello"),
			expectFile(t, "/etc/built", "built"),
			acctest.ExpectIsolated(t, "sandbox_container.test"),
			acctest.ExpectInside(t, "sandbox_container.test", func(ctx context.Context, id string) error {
				if out, err := acctest.ExecOK(ctx, t, id, "ls", "/notes.txt"); err == nil {
					return fmt.Errorf("a file .dockerignore excludes reached the image: %s", out)
				}
				return nil
			}),
		},
	}, {
		// Editing an excluded file, or touching one, plans nothing.
		PreConfig: func() {
			acctest.Write(t, filepath.Join(dir, "notes.txt"), "changed, but left out")
			later := time.Now().Add(time.Hour)
			if err := os.Chtimes(filepath.Join(dir, "greeting.txt"), later, later); err != nil {
				t.Fatal(err)
			}
		},
		Config:            config,
		ConfigPlanChecks:  noChange,
		ConfigStateChecks: []statecheck.StateCheck{sameImage.AddStateValue(addr, attr("image_id"))},
	}, {
		// Editing a file that is sent rebuilds the image and replaces the
		// sandbox that runs it.
		PreConfig:        func() { acctest.Write(t, filepath.Join(dir, "greeting.txt"), "hello again") },
		Config:           config,
		ConfigPlanChecks: rebuild,
		ConfigStateChecks: []statecheck.StateCheck{
			newImage.AddStateValue(addr, attr("image_id")),
			expectFile(t, "/etc/greeting", "hello again"),
		},
	}, {
		// An image removed behind Terraform's back is built again.
		PreConfig: acctest.OutOfBand(t, func(ctx context.Context, api *client.Client) error {
			if err := api.ContainerRemove(ctx, name, container.RemoveOptions{Force: true}); err != nil {
				return err
			}
			_, err := api.ImageRemove(ctx, tag, image.RemoveOptions{Force: true, PruneChildren: true})
			return err
		}),
		Config: config,
		ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
			plancheck.ExpectResourceAction(addr, plancheck.ResourceActionCreate),
		}},
		ConfigStateChecks: []statecheck.StateCheck{expectFile(t, "/etc/greeting", "hello again")},
	}, {
		// A tag moved to another image is put back, in place: the image
		// and the sandbox running it stay.
		PreConfig: acctest.OutOfBand(t, func(ctx context.Context, api *client.Client) error {
			return api.ImageTag(ctx, acctest.TestImage, tag)
		}),
		Config: config,
		ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
			plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
			plancheck.ExpectResourceAction("sandbox_container.test", plancheck.ResourceActionNoop),
			plancheck.ExpectKnownValue(addr, attr("tagged"), knownvalue.Bool(true)),
		}},
		ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectKnownValue(addr, attr("tagged"), knownvalue.Bool(true)),
			expectFile(t, "/etc/greeting", "hello again"),
			acctest.ExpectEngine(t, "sandbox_container.test", func(c engine.Sandbox) error {
				img, err := acctest.Engine(t).InspectImage(context.Background(), tag)
				if err != nil || img.ID != c.Image {
					return fmt.Errorf("%s names %s (%s), the sandbox runs %s", tag, img.ID, acctest.ErrText(err), c.Image)
				}
				return nil
			}),
		},
	}})
	if ids := acctest.ImagesNamed(t, name); len(ids) != 0 {
		t.Errorf("destroy left images tagged %s: %v", name, ids)
	}
}

// A failing RUN step fails the apply with the step and the tail of its
// output, and leaves no image.
func TestAccImage_failingStep(t *testing.T) {
	name := acctest.ImageName(t)
	// The COPY step makes an image of its own, which the failed build
	// must not leave dangling.
	dir := buildContext(t, name, "COPY a.txt /a.txt\nRUN echo preparing the agent && echo 'no such package: agent-tools' >&2 && exit 3\n",
		map[string]string{"a.txt": "a"})
	acctest.Test(t, []resource.TestStep{{
		Config: fmt.Sprintf("resource \"sandbox_image\" \"test\" {\n  name    = %q\n  context = %q\n}\n", name, dir),
		ExpectError: regexp.MustCompile(`(?s)Image build failed.*` + regexp.QuoteMeta(name) +
			`.*(returned\s+a\s+non-zero\s+code:\s+3|exit\s+status\s+3).*RUN\s+echo\s+preparing\s+the\s+agent.*` +
			`Last\s+lines\s+of\s+its\s+output:.*no such package: agent-tools`),
	}})
	if ids := acctest.ImagesNamed(t, name); len(ids) != 0 {
		t.Errorf("a failed build left images tagged %s: %v", name, ids)
	}
	expectNoDanglingImages(t, name, "a failed build")
}

// expectNoDanglingImages fails the test when an untagged image of the
// build context named name (buildContext labels every step's image) is
// left that nothing uses.
func expectNoDanglingImages(t *testing.T, name, what string) {
	t.Helper()
	list := acctest.ListImages(t, image.ListOptions{
		Filters: filters.NewArgs(filters.Arg("dangling", "true"), filters.Arg("label", "test.name="+name)),
	})
	for _, img := range list {
		// Which step made it, and when, says which moment of a build
		// left it.
		step := "(no history)"
		if history, err := acctest.Docker(t).ImageHistory(context.Background(), img.ID); err == nil && len(history) > 0 {
			step = history[0].CreatedBy
		}
		t.Errorf("%s left the dangling image %s, made %s by %q (parent %q)", what, img.ID,
			time.Unix(img.Created, 0).UTC().Format(time.RFC3339), step, img.ParentID)
	}
}

// What cannot be built is refused at plan time, each naming the attribute
// and the fix; a tag of an image the provider did not build is never
// moved.
func TestAccImage_invalidArgumentsRejected(t *testing.T) {
	name := acctest.ImageName(t)
	dir := buildContext(t, name, "", map[string]string{})
	config := func(body string) string {
		return fmt.Sprintf("resource \"sandbox_image\" \"test\" {\n%s\n}\n", body)
	}
	cases := []struct{ body, want string }{
		{fmt.Sprintf("name = %q\ncontext = %q", name, filepath.Join(dir, "missing")), `Cannot read the build context.*missing.*cannot be read`},
		{fmt.Sprintf("name = %q\ncontext = %q\ndockerfile = \"agent.Dockerfile\"", name, dir), `has no Dockerfile at agent.Dockerfile.*set dockerfile`},
		{fmt.Sprintf("name = %q\ncontext = %q\ndockerfile = \"../Dockerfile\"", name, dir), `dockerfile must be a relative path inside context`},
		{fmt.Sprintf("name = \"%s@sha256:%s\"\ncontext = %q", name, strings.Repeat("a", 64), dir), `name must be a repository and an optional tag`},
		{fmt.Sprintf("name = \"Upper/Case\"\ncontext = %q", dir), `name must be a repository and an optional tag`},
		{fmt.Sprintf("name = %q\ncontext = %q\nlabels = { \"tfsandbox.managed-by\" = \"x\" }", name, dir), `must not start with\s+"tfsandbox\."`},
	}
	steps := make([]resource.TestStep, 0, len(cases)+1)
	for _, c := range cases {
		steps = append(steps, resource.TestStep{Config: config(c.body), PlanOnly: true,
			ExpectError: regexp.MustCompile(`(?s)` + strings.ReplaceAll(c.want, " ", `\s+`))})
	}
	steps = append(steps, resource.TestStep{
		Config:      config(fmt.Sprintf("name = %q\ncontext = %q", acctest.TestImage, dir)),
		ExpectError: regexp.MustCompile(`(?s)Name\s+tags\s+another\s+image.*which\s+this\s+provider\s+did\s+not\s+build.*Choose\s+another\s+name`),
	})
	acctest.Test(t, steps)
	if _, err := acctest.Engine(t).InspectImage(context.Background(), acctest.TestImage); err != nil {
		t.Fatalf("the test image is gone: %v", err)
	}
}

// Destroying an image a container still uses is an error that names the
// container, and leaves the image; once the container is gone, destroy
// removes it. keep_on_destroy leaves the image on the engine.
func TestAccImage_destroy(t *testing.T) {
	name := acctest.ImageName(t)
	dir := buildContext(t, name, "LABEL purpose=test\n", map[string]string{})
	user := name + "-user"
	config := func(keep bool) string {
		return fmt.Sprintf("resource \"sandbox_image\" \"test\" {\n  name    = %q\n  context = %q\n  keep_on_destroy = %t\n}\n", name, dir, keep)
	}
	const empty = "# nothing\n"
	var imageID string
	acctest.Test(t, []resource.TestStep{{
		Config: config(false),
		ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectKnownValue(addr, attr("keep_on_destroy"), knownvalue.Bool(false)),
		},
		Check: func(s *terraform.State) error {
			imageID = s.RootModule().Resources[addr].Primary.Attributes["image_id"]
			return nil
		},
	}, {
		PreConfig: acctest.OutOfBand(t, func(ctx context.Context, api *client.Client) error {
			_, err := api.ContainerCreate(ctx, &container.Config{Image: imageID, Cmd: []string{"true"}}, nil, nil, nil, user)
			return err
		}),
		Config:      empty,
		ExpectError: regexp.MustCompile(`(?s)Image in use.*` + regexp.QuoteMeta(user) + `.*keep_on_destroy`),
	}, {
		PreConfig: acctest.OutOfBand(t, func(ctx context.Context, api *client.Client) error {
			return api.ContainerRemove(ctx, user, container.RemoveOptions{Force: true})
		}),
		Config: empty,
	}, {
		Config: config(true),
	}, {
		Config: empty,
		Check: func(s *terraform.State) error {
			if ids := acctest.ImagesNamed(t, name); len(ids) != 1 {
				return fmt.Errorf("keep_on_destroy = true: images tagged %s: %v, want one", name, ids)
			}
			return nil
		},
	}})
}

// The example of the docs applies as written (with unique names): the
// image builds from its context with its build argument, and the sandbox
// runs it.
func TestAccImage_example(t *testing.T) {
	name := acctest.ImageName(t)
	example, err := os.ReadFile(filepath.Join(acctest.ModuleRoot(t), "examples", "resources", "sandbox_image", "resource.tf"))
	if err != nil {
		t.Fatal(err)
	}
	dir, err := filepath.Abs(filepath.Join(acctest.ModuleRoot(t), "examples", "resources", "sandbox_image", "agent"))
	if err != nil {
		t.Fatal(err)
	}
	config := strings.NewReplacer(
		`"agents/python-tools:1"`, fmt.Sprintf("%q", name+":1"),
		`"${path.module}/agent"`, fmt.Sprintf("%q", dir),
		`"agent-sandbox"`, fmt.Sprintf("%q", name),
	).Replace(string(example))
	acctest.Test(t, []resource.TestStep{{
		Config: config,
		ConfigStateChecks: []statecheck.StateCheck{
			acctest.ExpectInside(t, "sandbox_container.agent", func(ctx context.Context, id string) error {
				out, err := acctest.ExecOK(ctx, t, id, "/usr/local/bin/tools")
				if err != nil || out != "agent tools 1.4\n" {
					return fmt.Errorf("tools gave %q (%s)", out, acctest.ErrText(err))
				}
				return nil
			}),
			acctest.ExpectIsolated(t, "sandbox_container.agent"),
		},
	}})
}

// A Dockerfile elsewhere in the context (sent even though .dockerignore
// excludes its directory), a target stage, and labels beside the
// provider's own.
func TestAccImage_dockerfileTargetAndLabels(t *testing.T) {
	name := acctest.ImageName(t)
	dir := buildContext(t, name, "", map[string]string{
		".dockerignore": "docker/\n",
		"docker/agent.Dockerfile": fmt.Sprintf("FROM %s AS tools\nLABEL test.name=%q\nRUN echo tools > /tools\n"+
			"FROM tools AS final\nRUN echo final > /final\n", acctest.TestImage, name),
	})
	config := imageConfig(name, dir, `  dockerfile = "docker/agent.Dockerfile"
  target     = "tools"
  labels     = { team = "platform" }`)
	acctest.Test(t, []resource.TestStep{{
		Config: config,
		ConfigStateChecks: []statecheck.StateCheck{
			expectFile(t, "/tools", "tools"),
			acctest.ExpectInside(t, "sandbox_container.test", func(ctx context.Context, id string) error {
				if out, err := acctest.ExecOK(ctx, t, id, "cat", "/final"); err == nil {
					return fmt.Errorf("the stage after the target was built: /final = %q", out)
				}
				return nil
			}),
			acctest.ExpectEngine(t, "sandbox_container.test", func(c engine.Sandbox) error {
				img, err := acctest.Engine(t).InspectImage(context.Background(), c.Image)
				if err != nil {
					return err
				}
				if img.Labels["team"] != "platform" || !engine.ManagedBy(img.Labels) {
					return fmt.Errorf("image labels %v", img.Labels)
				}
				return nil
			}),
		},
	}})
}
