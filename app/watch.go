package app

import "context"

// watchConfig applies edits of the config and grants files until ctx
// ends. (Replaced by the fsnotify watcher.)
func (d *Daemon) watchConfig(ctx context.Context) {}
