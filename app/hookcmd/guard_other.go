//go:build !unix

package hookcmd

import "os"

var stopSignals = []os.Signal{os.Interrupt}

func ignoreBrokenPipe() {}
