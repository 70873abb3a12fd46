package daemon

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/user"
	"sync"
	"time"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/files/audit/export"
	"github.com/agatehq/agate/app/version"
	"github.com/agatehq/agate/keystore"
)

// exportAudit ships the audit log to the collector [audit.export] names
// (package export) until ctx ends: after each line is on disk, never in
// a decision's way.
func (d *Daemon) exportAudit(ctx context.Context) {
	var mu sync.Mutex
	var resolver *keystore.Resolver
	var resolvedFor string
	e := export.New(export.Options{
		Log:     d.paths.AuditLog(),
		State:   export.StatePath(d.paths.State),
		Changed: d.audit.Changed(),
		Logger:  d.logger,
		Target: func() (export.Target, error) {
			cfg, _ := d.Config()
			x := cfg.Audit.Export
			t := export.Target{Endpoint: x.Endpoint, Header: http.Header{}, Resource: exportResource(x.Resource)}
			if x.Endpoint == "" || len(x.Headers) == 0 {
				return t, nil
			}
			mu.Lock()
			defer mu.Unlock()
			if resolver == nil || resolvedFor != fmt.Sprint(cfg.Secrets.VaultEnv) {
				store, err := keystore.Open(d.paths.KeyStore(), &keystore.Keychain{}, &keystore.Passphrase{Ask: keystore.EnvPrompt(nil)})
				if err != nil {
					store = nil
				}
				resolver, resolvedFor = keystore.NewResolver(store, cfg.Secrets.VaultEnv), fmt.Sprint(cfg.Secrets.VaultEnv)
			}
			rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			defer cancel()
			for k, ref := range x.Headers {
				v, ok, err := resolver.Resolve(rctx, ref)
				switch {
				case err != nil:
					return t, fmt.Errorf("[audit.export] headers.%s: %w", k, err)
				case !ok:
					return t, fmt.Errorf("[audit.export] headers.%s: %s is not set", k, ref)
				}
				t.Header.Set(k, v)
			}
			return t, nil
		},
	})
	d.exporter.Store(e)
	e.Run(ctx)
}

// exportStatus is how the export stands, nil when none is configured.
func (d *Daemon) exportStatus() *api.ExportStatus {
	cfg, _ := d.Config()
	e := d.exporter.Load()
	if cfg == nil || cfg.Audit.Export.Endpoint == "" || e == nil {
		return nil
	}
	st := e.Stats()
	return &api.ExportStatus{Endpoint: redactURL(cfg.Audit.Export.Endpoint), Delivered: st.Delivered, Waiting: st.Waiting,
		LastSent: st.LastSent, LastError: st.LastError, LastErrorAt: st.LastErrorAt}
}

// redactURL is u without a user or password in it.
func redactURL(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.User == nil {
		return u
	}
	p.User = nil
	return p.String()
}

// exportResource is the resource every exported record carries: agate,
// its version, the user and the host, and what the config adds.
func exportResource(extra map[string]string) map[string]string {
	r := map[string]string{"service.name": "agate", "service.version": version.Version}
	if h, err := os.Hostname(); err == nil {
		r["host.name"] = h
	}
	if u, err := user.Current(); err == nil {
		r["user.name"] = u.Username
	}
	for k, v := range extra {
		r[k] = v
	}
	return r
}
