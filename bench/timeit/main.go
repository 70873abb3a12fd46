// Command timeit times whole commands, interleaved round by round so that
// a noisy machine slows them all alike, and prints each one's median and
// 90th percentile and its ratio to the first (the baseline).
//
//	timeit -n 200 -in payload.json -- NAME=CMD ARGS... ;; NAME@other.json=CMD ARGS...
//
// NAME@FILE gives that command FILE on stdin instead of -in's.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"time"
)

type candidate struct {
	name  string
	argv  []string
	stdin []byte
	runs  []time.Duration
}

func main() {
	n := flag.Int("n", 100, "rounds")
	in := flag.String("in", "", "file given to each command on stdin")
	warm := flag.Int("warm", 5, "untimed rounds first")
	okExit := flag.Int("ok", 0, "an exit status, besides 0, that counts as success (2: a hook that blocks)")
	flag.Parse()
	var stdin []byte
	if *in != "" {
		b, err := os.ReadFile(*in)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		stdin = b
	}
	var cands []*candidate
	for _, spec := range strings.Split(strings.Join(flag.Args(), " "), ";;") {
		spec = strings.TrimSpace(spec)
		name, cmd, ok := strings.Cut(spec, "=")
		if !ok || strings.TrimSpace(cmd) == "" {
			fmt.Fprintf(os.Stderr, "timeit: want NAME=CMD, got %q\n", spec)
			os.Exit(2)
		}
		c := &candidate{name: name, argv: strings.Fields(cmd), stdin: stdin}
		if n, file, ok := strings.Cut(name, "@"); ok {
			b, err := os.ReadFile(file)
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(2)
			}
			c.name, c.stdin = n, b
		}
		cands = append(cands, c)
	}
	if len(cands) == 0 {
		fmt.Fprintln(os.Stderr, "timeit: no commands")
		os.Exit(2)
	}
	for round := 0; round < *warm+*n; round++ {
		for _, c := range cands {
			cmd := exec.Command(c.argv[0], c.argv[1:]...)
			cmd.Stdin = bytes.NewReader(c.stdin)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			start := time.Now()
			err := cmd.Run()
			d := time.Since(start)
			var ee *exec.ExitError
			if errors.As(err, &ee) && *okExit != 0 && ee.ExitCode() == *okExit {
				err = nil
			}
			if err != nil {
				fmt.Fprintf(os.Stderr, "timeit: %s: %v\n%s", c.name, err, out.String())
				os.Exit(1)
			}
			if round >= *warm {
				c.runs = append(c.runs, d)
			}
		}
	}
	base := median(cands[0].runs)
	fmt.Printf("%-28s %10s %10s %8s\n", "command", "median", "p90", "ratio")
	for _, c := range cands {
		m := median(c.runs)
		fmt.Printf("%-28s %10s %10s %7.2fx\n", c.name, round(m), round(pct(c.runs, 0.9)), float64(m)/float64(base))
	}
}

func median(d []time.Duration) time.Duration { return pct(d, 0.5) }

func pct(d []time.Duration, p float64) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[int(float64(len(s)-1)*p)]
}

func round(d time.Duration) time.Duration { return d.Round(10 * time.Microsecond) }
