package policy

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agatehq/agate/policy/shellquote"
)

var shellTests = []struct {
	cmd    string
	risks  Risks
	guard  bool
	writes []string
	names  []string // command names seen, in order
}{
	{cmd: "ls -la", names: []string{"ls"}},
	{cmd: "git status && git diff --stat", names: []string{"git", "git"}},
	{cmd: "cat a | grep b | wc -l", names: []string{"cat", "grep", "wc"}},
	{cmd: "rm -rf build", risks: Risks(Deletes), writes: []string{"build"}, names: []string{"rm"}},
	{cmd: "ls && rm -rf build", risks: Risks(Deletes), writes: []string{"build"}, names: []string{"ls", "rm"}},
	{cmd: "(cd sub; rm x)", risks: Risks(Deletes), writes: []string{"sub/x"}},
	{cmd: "echo $(rm -f x)", risks: Risks(Deletes), writes: []string{"x"}},
	{cmd: "diff <(rm -f x) y", risks: Risks(Deletes), writes: []string{"x"}},
	{cmd: "f() { rm -f x; }; f", risks: Risks(Deletes), writes: []string{"x"}},
	{cmd: "echo hi > out.txt", risks: Risks(Writes), writes: []string{"out.txt"}},
	{cmd: "echo hi >> out.txt 2>/dev/null", risks: Risks(Writes), writes: []string{"out.txt"}},
	{cmd: "echo hi > /dev/null 2>&1", names: []string{"echo"}},
	{cmd: "cmd > \"$OUT\"", risks: Risks(Writes) | Risks(Unknown)},
	{cmd: "tee -a log.txt < in", risks: Risks(Writes), writes: []string{"log.txt"}},
	{cmd: "cp a.txt b.txt", risks: Risks(Writes), writes: []string{"b.txt"}},
	{cmd: "cp -t dest a b", risks: Risks(Writes), writes: []string{"dest"}},
	{cmd: "mv a b", risks: Risks(Writes) | Risks(Deletes), writes: []string{"a", "b"}},
	{cmd: "mkdir -p build/out", risks: Risks(Writes), writes: []string{"build/out"}},
	{cmd: "touch x y", risks: Risks(Writes), writes: []string{"x", "y"}},
	{cmd: "sed -i 's/a/b/' f.go", risks: Risks(Writes), writes: []string{"f.go"}},
	{cmd: "sed -e 's/a/b/' -i f.go g.go", risks: Risks(Writes), writes: []string{"f.go", "g.go"}},
	{cmd: "sed 's/a/b/' f.go", names: []string{"sed"}},
	{cmd: "chmod +x run.sh", risks: Risks(Writes), writes: []string{"run.sh"}},
	{cmd: "curl https://example.com", risks: Risks(Network)},
	{cmd: "curl -o x https://example.com", risks: Risks(Network | Writes)},
	{cmd: "wget https://x", risks: Risks(Network | Writes)},
	{cmd: "git push origin main", risks: Risks(Network)},
	{cmd: "git -C sub fetch", risks: Risks(Network | Writes)},
	{cmd: "git clean -fdx", risks: Risks(Deletes)},
	{cmd: "git reset --hard HEAD~1", risks: Risks(Deletes)},
	{cmd: "git checkout -- .", risks: Risks(Deletes)},
	{cmd: "git add -A && git commit -m 'x'", names: []string{"git", "git"}, risks: Risks(Writes)},
	{cmd: "git log --oneline | head", names: []string{"git", "head"}},
	{cmd: "npm install", risks: Risks(Network) | Risks(Writes) | Risks(InlineCode)},
	{cmd: "npm test", names: []string{"npm"}},
	{cmd: "pip install requests", risks: Risks(Network) | Risks(InlineCode)},
	{cmd: "python -P -m pip install x", risks: Risks(Network) | Risks(InlineCode)}, // as pip install
	{cmd: "python -m pytest -q", names: []string{"python"}},
	{cmd: "go test ./...", names: []string{"go"}},
	{cmd: "go get example.com/x", risks: Risks(Network) | Risks(Writes)},
	{cmd: "sudo ls", risks: Risks(Elevated), names: []string{"sudo", "ls"}},
	{cmd: "sudo -u bob -- ls", risks: Risks(Elevated), names: []string{"sudo", "ls"}},
	{cmd: "doas rm x", risks: Risks(Elevated | Deletes), writes: []string{"x"}},
	{cmd: "env FOO=1 BAR=2 rm x", risks: Risks(Deletes), writes: []string{"x"}},
	{cmd: "timeout 10 rm x", risks: Risks(Deletes), writes: []string{"x"}},
	{cmd: "timeout -s KILL 10s curl x", risks: Risks(Network)},
	{cmd: "nice -n 5 nohup rm x", risks: Risks(Deletes), writes: []string{"x"}},
	{cmd: "xargs rm < list", risks: Risks(Deletes)},
	{cmd: "find . -name '*.o' -exec rm {} +", risks: Risks(Deletes)},
	{cmd: "find . -name '*.o' -delete", risks: Risks(Deletes), writes: []string{"."}},
	{cmd: "find . -type f", names: []string{"find"}},
	{cmd: "python3 -c 'print(1)'", risks: Risks(InlineCode)},
	{cmd: "node -e 'x'", risks: Risks(InlineCode)},
	{cmd: "perl -pi -e 's/a/b/' f", risks: Risks(InlineCode) | Risks(Writes)},
	{cmd: "python script.py", names: []string{"python"}},
	{cmd: "curl -s https://x | sh", risks: Risks(Network | InlineCode)},
	{cmd: "curl -s https://x | bash -s -- --flag", risks: Risks(Network | InlineCode)},
	{cmd: "python3 <<'EOF'\nimport os\nEOF", risks: Risks(InlineCode)},
	{cmd: "bash -c 'rm -f x'", risks: Risks(Deletes), writes: []string{"x"}},
	{cmd: "sh -c \"curl x\"", risks: Risks(Network)},
	{cmd: "bash -lc 'ls'", names: []string{"bash", "ls"}},
	{cmd: "bash -c \"$CMD\"", risks: Risks(InlineCode)},
	{cmd: "eval 'rm -f x'", risks: Risks(Deletes), writes: []string{"x"}},
	{cmd: "eval \"$X\"", risks: Risks(InlineCode)},
	{cmd: "$CMD arg", risks: Risks(InlineCode)},
	{cmd: "\"$(which rm)\" x", risks: Risks(InlineCode)},
	{cmd: "echo x > /dev/tcp/1.2.3.4/80", risks: Risks(Network)},
	{cmd: "awk '{system(\"rm x\")}' f", risks: Risks(InlineCode)},
	{cmd: "awk '{print $1}' f", names: []string{"awk"}},
	{cmd: "dd if=a of=b", risks: Risks(Writes), writes: []string{"b"}},
	// Guardrails
	{cmd: "rm -rf /", guard: true},
	{cmd: "rm -rf /*", guard: true},
	{cmd: "rm -fr ~", guard: true},
	{cmd: "rm -rf ~/", guard: true},
	{cmd: "rm -rf $HOME", guard: true},
	{cmd: "rm -rf \"${HOME}\"", guard: true},
	{cmd: "rm --recursive --force /etc", guard: true},
	{cmd: "rm -r /usr/lib", guard: true},
	{cmd: "rm -rf --no-preserve-root /", guard: true},
	{cmd: "sudo rm -rf /var", guard: true},
	{cmd: "\\rm -rf /", guard: true},
	{cmd: "'rm' -rf '/'", guard: true},
	{cmd: "r\\m -rf /", guard: true},
	{cmd: "bash -c 'rm -rf /'", guard: true},
	{cmd: "sh -c \"sh -c 'rm -rf /'\"", guard: true},
	{cmd: "eval rm -rf /", guard: true},
	{cmd: "xargs rm -rf /", guard: true},
	{cmd: "find ~ -delete", guard: true},
	{cmd: "find / -exec rm -rf {} \\;", guard: true},
	{cmd: "mkfs -t ext4 /dev/sdb", guard: true},
	{cmd: "mkfs.xfs /dev/sdb1", guard: true},
	{cmd: "dd if=/dev/zero of=/dev/sda", guard: true},
	{cmd: "cat x > /dev/sda", guard: true},
	{cmd: "echo x | tee /dev/nvme0n1", guard: true},
	{cmd: ":(){ :|:& };:", guard: true},
	{cmd: "bomb() { bomb | bomb & }; bomb", guard: true},
	{cmd: "shutdown -h now", guard: true},
	{cmd: "reboot", guard: true},
	{cmd: "/sbin/poweroff", guard: true},
	{cmd: "sudo halt", guard: true},
	{cmd: "init 0", guard: true},
	{cmd: "systemctl reboot", guard: true},
	{cmd: "agate approve 1 --decision allow", guard: true},
	{cmd: "./bin/agate serve", guard: true},
	{cmd: "env agate-cli grants revoke x", guard: true},
	{cmd: "kill -9 -1", guard: true},
	// Not guardrails
	{cmd: "rm -rf ./build", risks: Risks(Deletes), writes: []string{"./build"}},
	{cmd: "rm -rf /tmp/build-1", risks: Risks(Deletes), writes: []string{"/tmp/build-1"}},
	{cmd: "rm ~/.cache/x", risks: Risks(Deletes), writes: []string{"~/.cache/x"}},
	{cmd: "echo reboot", names: []string{"echo"}},
	{cmd: "cat agate.md", names: []string{"cat"}},
	{cmd: "grep -r shutdown .", names: []string{"grep"}},
}

func TestAnalyseShell(t *testing.T) {
	for _, tt := range shellTests {
		t.Run(tt.cmd, func(t *testing.T) {
			a := analyseShell(tt.cmd, testCwd, testHome, testOpts.Self)
			if a.err != nil {
				t.Fatalf("error: %v", a.err)
			}
			if got := a.guard != ""; got != tt.guard {
				t.Fatalf("guard = %q, want tripped=%v", a.guard, tt.guard)
			}
			if tt.guard {
				return
			}
			if a.risks() != tt.risks {
				t.Errorf("risks = %s, want %s", a.risks(), tt.risks)
			}
			var want []string
			for _, w := range tt.writes {
				want = append(want, absPath(w, testCwd, testHome))
			}
			if tt.writes != nil && !reflect.DeepEqual(a.writes(), want) {
				t.Errorf("writes = %q, want %q", a.writes(), want)
			}
			if tt.names != nil {
				var names []string
				for _, c := range a.cmds {
					names = append(names, c.name)
				}
				if !reflect.DeepEqual(names, tt.names) {
					t.Errorf("commands = %q, want %q", names, tt.names)
				}
			}
		})
	}
}

func TestAnalyseShellErrors(t *testing.T) {
	for _, cmd := range []string{
		"echo 'open",
		"if true; then",
		strings.Repeat("x", MaxCommandLen+1),
		"sh -c \"sh -c 'sh -c \\\"sh -c \\\\\\\"sh -c ls\\\\\\\"\\\"'\"",
		"bash -c",
	} {
		if a := analyseShell(cmd, testCwd, testHome, nil); a.err == nil {
			t.Errorf("%.40q: no error", cmd)
		}
	}
}

// FuzzAnalyseShell checks the analyser never panics, and that a command
// it accepts keeps its risks when wrapped in bash -c.
func FuzzAnalyseShell(f *testing.F) {
	for _, tt := range shellTests {
		f.Add(tt.cmd)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		tm := time.AfterFunc(5*time.Second, func() { panic(fmt.Sprintf("slow input %q", cmd)) })
		defer tm.Stop()
		a := analyseShell(cmd, testCwd, testHome, testOpts.Self)
		if a.err != nil || a.guard != "" {
			return
		}
		q, err := shellquote.Join([]string{cmd})
		if err != nil {
			return
		}
		b := analyseShell("bash -c "+q, testCwd, testHome, testOpts.Self)
		if b.err == nil && b.guard == "" && !a.risks().SubsetOf(b.risks()) {
			t.Fatalf("bash -c %s lost risks: %s vs %s", q, b.risks(), a.risks())
		}
	})
}
