package docker

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/docker/docker/api/types/image"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// An image the provider built ends with its build's labels, the build
// token among them, whichever builder wrote them; a child image or a
// commit ends with entries of its own.
func TestNewestEntrySets(t *testing.T) {
	const token = "0123abcd"
	entries := func(by ...string) []image.HistoryResponseItem {
		var h []image.HistoryResponseItem
		for _, b := range by {
			h = append(h, image.HistoryResponseItem{CreatedBy: b})
		}
		return h
	}
	tests := map[string]struct {
		history []image.HistoryResponseItem
		want    bool
	}{
		"Docker's classic builder, one entry a label": {entries(
			"/bin/sh -c #(nop)  LABEL tfsandbox.resource-type=sandbox_container",
			"/bin/sh -c #(nop)  LABEL tfsandbox.build-token="+token,
			"/bin/sh -c #(nop) COPY dir:abc in / "), true},
		"Podman, one entry for all": {entries(
			`/bin/sh -c #(nop) LABEL "tfsandbox.build-token"="`+token+`" "tfsandbox.managed-by"="terraform-provider-sandbox"`,
			"/bin/sh -c echo hi"), true},
		"a child built FROM it": {entries("/bin/sh -c echo more",
			"/bin/sh -c #(nop)  LABEL tfsandbox.build-token="+token), false},
		"a docker commit of a sandbox": {entries("tail -f /dev/null",
			"/bin/sh -c #(nop)  LABEL tfsandbox.build-token="+token), false},
		"another build's token": {entries("/bin/sh -c #(nop)  LABEL tfsandbox.build-token=ffff"), false},
		"no history":            {nil, false},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			if got := newestEntrySets(tt.history, token); got != tt.want {
				t.Errorf("newestEntrySets = %v, want %v", got, tt.want)
			}
		})
	}
}

// An image that lists its build's labels passes only when its newest
// entries set exactly those, each once: a child that adds only labels, or
// sets one of them again, does not.
func TestNewestEntriesSetExactly(t *testing.T) {
	const token = "0123abcd"
	listed := buildLabelKeys(map[string]string{engine.LabelBuildToken: token, engine.LabelManagedBy: "x", "team": "a b"})
	entries := func(by ...string) []image.HistoryResponseItem {
		var h []image.HistoryResponseItem
		for _, b := range by {
			h = append(h, image.HistoryResponseItem{CreatedBy: b})
		}
		return h
	}
	docker := []string{
		"/bin/sh -c #(nop)  LABEL team=a b",
		"/bin/sh -c #(nop)  LABEL " + engine.LabelBuildToken + "=" + token,
		"/bin/sh -c #(nop)  LABEL " + engine.LabelBuildLabels + "=" + listed,
		"/bin/sh -c #(nop)  LABEL " + engine.LabelManagedBy + "=x",
		"/bin/sh -c #(nop)  LABEL from.the.dockerfile=1",
		"/bin/sh -c true",
	}
	podman := []string{
		`/bin/sh -c #(nop) LABEL "` + engine.LabelManagedBy + `"="x"`,
		`/bin/sh -c #(nop) LABEL "` + engine.LabelBuildToken + `"="` + token + `"`,
		`/bin/sh -c #(nop) LABEL "team"="a b"`,
		`/bin/sh -c #(nop) LABEL "` + engine.LabelBuildLabels + `"=` + strconv.Quote(listed),
		"/bin/sh -c true",
	}
	tests := map[string]struct {
		history []image.HistoryResponseItem
		want    bool
	}{
		"Docker's classic builder":          {entries(docker...), true},
		"Podman, one entry a label":         {entries(podman...), true},
		"one entry for all the labels":      {entries(`/bin/sh -c #(nop) LABEL "team"="a b" "`+engine.LabelBuildToken+`"="`+token+`" "`+engine.LabelManagedBy+`"="x" "`+engine.LabelBuildLabels+`"=`+strconv.Quote(listed), "/bin/sh -c true"), true},
		"a child adding a label":            {entries(append([]string{"/bin/sh -c #(nop)  LABEL other=1"}, docker...)...), false},
		"a child setting one again":         {entries(append([]string{"/bin/sh -c #(nop)  LABEL team=evil"}, docker...)...), false},
		"a child adding a label, on Podman": {entries(append([]string{"/bin/sh -c #(nop) LABEL other=1"}, podman...)...), false},
		"a child with a step":               {entries(append([]string{"/bin/sh -c echo more"}, docker...)...), false},
		"another build's token":             {entries(strings.Split(strings.ReplaceAll(strings.Join(docker, "\n"), token, "ffff"), "\n")...), false},
		"a label missing":                   {entries(docker[1:]...), false},
		"no history":                        {nil, false},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			if got := newestEntriesSetExactly(tt.history, listed, token); got != tt.want {
				t.Errorf("newestEntriesSetExactly = %v, want %v", got, tt.want)
			}
		})
	}
	if newestEntriesSetExactly(entries(docker...), `not json`, token) {
		t.Error("an unreadable list of labels passed")
	}
}

// A build that does not finish leaves the images it made for its steps,
// and only those, to be removed: not the base image, nor cached steps.
func TestBuildOutputKnowsWhichImagesTheBuildMade(t *testing.T) {
	transcripts := map[string]struct {
		lines []string
		want  []string
	}{
		"Docker's classic builder": {[]string{
			"Step 1/5 : FROM tfsandbox/busybox:latest", " ---> b92472e90b23",
			"Step 2/5 : COPY a.txt /a.txt", " ---> Using cache", " ---> 0aedde1755b7",
			"Step 3/5 : COPY b.txt /b.txt", " ---> 59137ba20659",
			"Step 4/5 : RUN echo ran", " ---> Running in 5627b55e2c82", "ran",
			"Removing intermediate container 5627b55e2c82", " ---> b48ef802553c",
			"Step 5/5 : RUN exit 1", " ---> Running in 1c5b99d6e6b8",
		}, []string{"59137ba20659", "b48ef802553c"}},
		"Podman": {[]string{
			"STEP 1/4: FROM tfsandbox/busybox:latest",
			"STEP 2/4: COPY a.txt /a.txt", "--> Using cache 3397c817748f0123", "--> 3397c817748",
			"STEP 3/4: RUN echo ran", "ran", "--> 9019334620a",
			"STEP 4/4: RUN exit 1",
		}, []string{"9019334620a"}},
	}
	for name, tr := range transcripts {
		t.Run(name, func(t *testing.T) {
			o := buildOutput{logf: func(string) {}}
			for _, l := range tr.lines {
				o.line(l)
			}
			if !slices.Equal(o.made, tr.want) {
				t.Errorf("made %v, want %v", o.made, tr.want)
			}
		})
	}
}

// A build that finished leaves the images it made for the steps below the
// one it ended with, which the image's removal removes after it: not the
// image itself, nor the base, nor a step found in the cache.
func TestBuildOutputKnowsTheIntermediatesBelowTheImage(t *testing.T) {
	transcripts := map[string]struct {
		lines []string
		final string
		want  []string
	}{
		"Docker's classic builder": {[]string{
			"Step 1/4 : FROM tfsandbox/busybox:latest", " ---> b92472e90b23",
			"Step 2/4 : COPY a.txt /a.txt", " ---> Using cache", " ---> 0aedde1755b7",
			"Step 3/4 : RUN echo ran", " ---> Running in 5627b55e2c82", "ran",
			"Removing intermediate container 5627b55e2c82", " ---> b48ef802553c",
			"Step 4/4 : LABEL tfsandbox.build-token=1", " ---> Running in 1c5b99d6e6b8",
			"Removing intermediate container 1c5b99d6e6b8", " ---> 7e1f00c5a2d4",
			"Successfully built 7e1f00c5a2d4",
		}, "sha256:7e1f00c5a2d4aa00bb11cc22dd33ee44ff5566778899aabbccddeeff00112233", []string{"b48ef802553c"}},
		"Podman": {[]string{
			"STEP 1/3: FROM tfsandbox/busybox:latest",
			"STEP 2/3: COPY a.txt /a.txt", "--> 3397c817748",
			"STEP 3/3: RUN echo ran", "ran", "COMMIT", "--> 9019334620a",
			"9019334620a5f1e2d3c4b5a6978877665544332211ffeeddccbbaa0099887766",
		}, "9019334620a5f1e2d3c4b5a6978877665544332211ffeeddccbbaa0099887766", []string{"3397c817748"}},
		"a build of the base alone": {[]string{
			"Step 1/1 : FROM tfsandbox/busybox:latest", " ---> b92472e90b23", "Successfully built b92472e90b23",
		}, "sha256:b92472e90b23", nil},
	}
	for name, tr := range transcripts {
		t.Run(name, func(t *testing.T) {
			o := buildOutput{logf: func(string) {}}
			for _, l := range tr.lines {
				o.line(l)
			}
			if got := o.below(tr.final); !slices.Equal(got, tr.want) {
				t.Errorf("below the image %v, want %v", got, tr.want)
			}
		})
	}
}
