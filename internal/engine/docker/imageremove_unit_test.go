package docker

import (
	"testing"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// Podman's own removal of images (which, unlike its Docker-compatible one,
// keeps an image's untagged parents) answers with an exit code and errors,
// as Podman 4.3 gives them: each is classified as the Docker-compatible
// API's error would be.
func TestPodmanRemovalErrorsAreClassified(t *testing.T) {
	tests := map[string]struct {
		status          int
		body            string
		ok, gone, inUse bool
	}{
		"removed":   {200, `{"Deleted":["6edff8175f0e"],"Untagged":["docker.io/library/d:1"],"ExitCode":0,"Errors":null}`, true, false, false},
		"not known": {200, `{"ExitCode":1,"Errors":["nothere:1: image not known"]}`, false, true, false},
		"used by a container": {200, `{"ExitCode":2,"Errors":["image used by d1cce2dd: image is in use by a container"]}`,
			false, false, true},
		"another failure":        {200, `{"ExitCode":125,"Errors":["disk on fire"]}`, false, false, false},
		"a 404 of an old Podman": {404, `{"cause":"image not known","message":"x: image not known","response":404}`, false, true, false},
		"a 409":                  {409, `{"message":"in use"}`, false, false, true},
		"a 500 without JSON":     {500, `oops`, false, false, false},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			err := podmanRemovalError("d:1", tt.status, []byte(tt.body))
			if (err == nil) != tt.ok || engine.IsNotFound(err) != tt.gone || engine.IsConflict(err) != tt.inUse {
				t.Errorf("error %v: nil %v, not found %v, conflict %v; want %v, %v, %v", err, err == nil,
					engine.IsNotFound(err), engine.IsConflict(err), tt.ok, tt.gone, tt.inUse)
			}
		})
	}
}
