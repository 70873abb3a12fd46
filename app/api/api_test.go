package api

import (
	"errors"
	"path/filepath"
	"testing"
)

func TestResolvePaths(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("AGATE_STATE_DIR", "")
	tests := []struct {
		name                   string
		env                    map[string]string
		configFlag, socketFlag string
		config, socket, state  string
	}{
		{name: "defaults", env: map[string]string{"AGATE_CONFIG": "", "AGATE_SOCKET": "", "XDG_RUNTIME_DIR": ""},
			config: home + "/.config/agate/config.toml", socket: home + "/.local/state/agate/run/agate.sock", state: home + "/.local/state/agate"},
		{name: "runtime dir", env: map[string]string{"AGATE_CONFIG": "", "AGATE_SOCKET": "", "XDG_RUNTIME_DIR": "/run/user/1000"},
			config: home + "/.config/agate/config.toml", socket: "/run/user/1000/agate/agate.sock", state: home + "/.local/state/agate"},
		{name: "environment", env: map[string]string{"AGATE_CONFIG": "/etc/a.toml", "AGATE_SOCKET": "/s/a.sock", "AGATE_STATE_DIR": "/st"},
			config: "/etc/a.toml", socket: "/s/a.sock", state: "/st"},
		{name: "flags win", env: map[string]string{"AGATE_CONFIG": "/etc/a.toml", "AGATE_SOCKET": "/s/a.sock"},
			configFlag: "/f/c.toml", socketFlag: "/f/s.sock", config: "/f/c.toml", socket: "/f/s.sock", state: home + "/.local/state/agate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("AGATE_STATE_DIR", "")
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			p, err := ResolvePaths(tt.configFlag, tt.socketFlag)
			if err != nil {
				t.Fatal(err)
			}
			if p.Config != tt.config || p.Socket != tt.socket || p.State != tt.state {
				t.Fatalf("got %+v", p)
			}
			if p.Grants != filepath.Join(filepath.Dir(tt.config), "grants.toml") {
				t.Errorf("grants %s", p.Grants)
			}
		})
	}
}

func TestAPIErrorIs(t *testing.T) {
	if !errors.Is(&APIError{Status: 404}, ErrNotFound) || !errors.Is(&APIError{Status: 403}, ErrRefused) || errors.Is(&APIError{Status: 500}, ErrNotFound) {
		t.Fatal("APIError maps statuses wrongly")
	}
}
