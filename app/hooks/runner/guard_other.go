//go:build !unix

package runner

import "os"

var stopSignals = []os.Signal{os.Interrupt}

func ignoreBrokenPipe() {}
