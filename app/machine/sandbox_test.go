package machine

import (
	"testing"

	"github.com/agatehq/agate/app/api"
)

func TestSocketHideDir(t *testing.T) {
	tests := []struct {
		p    api.Paths
		want string
	}{
		{api.Paths{Socket: "/run/user/1000/agate/agate.sock", State: "/home/a/.local/state/agate"}, "/run/user/1000/agate"},
		{api.Paths{Socket: "/home/a/.local/state/agate/run/agate.sock", State: "/home/a/.local/state/agate"}, "/home/a/.local/state/agate/run"},
		{api.Paths{Socket: "/home/a/agate.sock", State: "/home/a/.local/state/agate"}, "/home/a/agate.sock"},
	}
	for _, tt := range tests {
		if got := socketHideDir(tt.p); got != tt.want {
			t.Errorf("socketHideDir(%+v) = %q, want %q", tt.p, got, tt.want)
		}
	}
}
