package keystore

import (
	"context"
	"fmt"

	"github.com/agatehq/agate/app/osutil"
)

// lockFile takes an exclusive lock on path+".lock" (see osutil.Lock: it
// polls, so ctx can end the wait, and the lock file is never removed) and
// returns the function that releases it.
func lockFile(ctx context.Context, path string) (unlock func(), err error) {
	unlock, err = osutil.Lock(ctx, path+".lock")
	if err != nil {
		return nil, fmt.Errorf("lock key store: %w", err)
	}
	return unlock, nil
}
