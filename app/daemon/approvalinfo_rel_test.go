package daemon

import "testing"

// TestRelativePaths: paths in the project read relative to it, the
// project's own folder as "the project", the rest of home as "~/", and a
// folder that only starts like the project's is left whole.
func TestRelativePaths(t *testing.T) {
	const project, home = "/home/u/proj", "/home/u"
	for in, want := range map[string]string{
		"It overwrites /home/u/proj/build/out.js, which git cannot give back.": "It overwrites build/out.js, which git cannot give back.",
		"It reads /home/u/.aws/credentials, which holds secrets.":              "It reads ~/.aws/credentials, which holds secrets.",
		"deletes /home/u/proj":                                             "deletes the project",
		"writes /home/u/proj2/x and /home/u/projects":                      "writes ~/proj2/x and ~/projects",
		"writes /tmp/home/u/proj/x":                                        "writes /tmp/home/u/proj/x",
		"`rm -rf /home/u/proj/dist` deletes /home/u/proj/dist (recursive)": "`rm -rf dist` deletes dist (recursive)",
		"reads /home/u":                                                    "reads ~",
		"nothing here":                                                     "nothing here",
	} {
		if got := relativePaths(in, project, home); got != want {
			t.Errorf("%q:\n got %q\nwant %q", in, got, want)
		}
	}
	if got := relativePaths("reads /home/u/x", "", ""); got != "reads /home/u/x" {
		t.Errorf("no project, no home: %q", got)
	}
}
