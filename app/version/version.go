// Package version holds agate's version, set at build time:
//
//	go build -ldflags '-X github.com/agatehq/agate/app/version.Version=v1.2.3'
package version

// Version is agate's version, "dev" when the build did not set it.
var Version = "dev"
