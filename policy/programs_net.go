package policy

import (
	"net/netip"
	"net/url"
	"slices"
	"strings"
)

// The handlers of network clients and cloud tools: ssh, sshfs, gh, the cloud CLIs, kubectl, openssl (policy/programs/net.toml).

// sshCodeOptions are ssh's -o options that run a command.
var sshCodeOptions = map[string]bool{"proxycommand": true, "localcommand": true, "permitlocalcommand": true,
	"knownhostscommand": true, "remotecommand": true, "match": true, "include": true, "pkcs11provider": true,
	"securitykeyprovider": true, "sessiontype": false, "setenv": true, "sendenv": false, "controlpath": false,
	"identityagent": false, "proxyjump": false}

// sshHandler: -o options that run a command are code.
func sshHandler(c *cmdRun) {
	for _, o := range c.opts {
		if o.name != "-o" {
			continue
		}
		key, _, _ := strings.Cut(o.val, "=")
		key, _, _ = strings.Cut(strings.TrimSpace(key), " ")
		if !o.lit || sshCodeOptions[strings.ToLower(key)] {
			c.add(Effect{Kind: EffExec, What: c.prog + " -o " + key + " runs a command"})
		}
	}
}

// ghReads are the gh commands that only read; the rest change something
// on GitHub.
var ghReads = map[string]bool{"view": true, "list": true, "ls": true, "status": true, "diff": true, "checks": true,
	"search": true, "watch": true, "download": true, "logs": true, "log": true, "get": true, "clone": true}

// ghHandler: gh reaches api.github.com; writes send data; gh auth token
// prints a credential.
func ghHandler(c *cmdRun) {
	c.add(Effect{Kind: EffNetwork, Host: "api.github.com"})
	sub := ""
	if len(c.prefix) > 1 {
		sub = c.prefix[1]
	}
	verb := ""
	if len(c.ops) > 0 {
		verb = c.ops[0].word
		c.prefix = append(c.prefix, verb)
	}
	switch sub {
	case "auth":
		switch verb {
		case "token", "status":
			if verb == "token" || c.has("-t", "--show-token") || len(c.ops) > 1 && (c.ops[1].word == "-t" || c.ops[1].word == "--show-token") {
				c.add(Effect{Kind: EffSecret, What: "gh auth " + verb + " prints a GitHub token"})
			}
			for _, op := range c.ops[1:] {
				if op.word == "-t" || op.word == "--show-token" {
					c.add(Effect{Kind: EffSecret, What: "gh auth status --show-token prints a GitHub token"})
				}
			}
			return
		default:
			c.add(Effect{Kind: EffPersist, What: "gh auth " + verb + " changes the GitHub credentials"})
			return
		}
	case "api":
		for _, op := range c.ops {
			w := strings.ToUpper(op.word)
			if w == "POST" || w == "PUT" || w == "PATCH" || w == "DELETE" || strings.HasPrefix(op.word, "-f") || strings.HasPrefix(op.word, "-F") ||
				strings.HasPrefix(op.word, "--field") || strings.HasPrefix(op.word, "--raw-field") || strings.HasPrefix(op.word, "--input") {
				c.add(Effect{Kind: EffUpload, Host: "api.github.com", What: "gh api sends data"})
				return
			}
		}
		return
	case "browse", "codespace":
		c.add(Effect{Kind: EffExec, What: "gh " + sub + " opens what gh likes"})
		return
	case "status", "search":
		return
	case "extension":
		if verb != "list" {
			c.add(Effect{Kind: EffExec, What: "gh extension installs or runs extensions"})
		}
		return
	case "config", "alias":
		if verb == "set" || verb == "delete" || verb == "import" || verb == "clear-cache" {
			c.add(Effect{Kind: EffPersist, What: "gh " + sub + " " + verb + " changes gh's settings"})
		}
		return
	case "repo":
		if verb == "clone" {
			c.add(Effect{Kind: EffWrite, Path: c.base, What: "gh repo clone"})
			return
		}
	case "run", "release":
		if verb == "download" {
			c.add(Effect{Kind: EffWrite, Path: c.base, What: "gh " + sub + " download"})
			return
		}
	case "pr":
		if verb == "checkout" {
			c.add(Effect{Kind: EffWrite, Path: c.base, What: "gh pr checkout changes the working tree"})
			return
		}
	}
	if verb == "" || ghReads[verb] {
		if verb != "" && !c.has("--hostname") && !c.hasWord("--web") && !c.hasWord("-w") && sub != "api" {
			for i := range c.effects {
				if e := &c.effects[i]; e.Kind == EffNetwork && e.Host == "api.github.com" {
					e.Service, e.What = true, "gh "+sub+" "+verb+" reads GitHub with the person's login"
				}
			}
		}
		return
	}
	c.add(Effect{Kind: EffUpload, Host: "api.github.com", What: "gh " + sub + " " + verb + " changes something on GitHub"})
}

// cloudSecrets are what cloud tools print that are credentials.
var cloudSecrets = lazyRegexp(`(?i)^(get|export-credentials|get-session-token|get-access-token|print-access-token|print-identity-token|get-login-password|get-authorization-token|get-secret-value|access-secret|show-connection-string|list-keys|get-credentials|token)$`)

// cloudHandler: what cloud tools print can be credentials; their read
// verbs (aws ec2 describe-instances, gcloud compute instances list, az vm
// show, railway status) read the account the tool is logged in to, and
// their help and version reach nothing.
func cloudHandler(c *cmdRun) {
	for _, op := range c.ops {
		if cloudSecrets().MatchString(op.word) {
			c.add(Effect{Kind: EffSecret, What: c.prog + " " + op.word + " prints a credential"})
			return
		}
	}
	switch {
	case cloudHelp(c):
		c.dropKind(EffNetwork)
		c.dropKind(EffUpload)
		c.dropKind(EffSystem)
	case cloudRead(c):
		c.dropKind(EffUpload)
		c.dropKind(EffSystem)
		var verbs []string
		for _, op := range c.ops {
			verbs = append(verbs, op.word)
			if cloudReadVerb(op.word) {
				break
			}
		}
		c.serviceRead(c.prog + " " + strings.Join(verbs, " ") + " reads the account it is logged in to")
	}
}

// cloudHelp reports whether a cloud tool's command only prints its help
// or version: the last word --help, -h or help, with no verb that hands
// its words to another program (railway run -- x --help), or --version
// alone.
func cloudHelp(c *cmdRun) bool {
	n := len(c.words)
	if n == 0 || !c.lits[n-1] {
		return false
	}
	if n == 1 && (c.words[0] == "--version" || c.words[0] == "version" || c.words[0] == "-v" || c.words[0] == "-V") {
		return true
	}
	if w := c.words[n-1]; w != "--help" && w != "-h" && w != "help" {
		return false
	}
	for i, w := range c.words {
		switch {
		case !c.lits[i]:
			return false
		case w == "run" || w == "exec" || w == "ssh" || w == "shell" || w == "local" || w == "dev" || w == "console" || w == "proxy" || w == "connect" || w == "--":
			return false
		}
	}
	return true
}

// cloudRead reports whether a cloud tool's command only reads: a read
// verb among its words, every word literal, none that changes or runs
// something, names a secret or a local file to send, or sends the
// request elsewhere than the tool's own service.
func cloudRead(c *cmdRun) bool {
	if c.prog == "supabase" {
		return false // (supabase status prints the local stack's service keys)
	}
	read := false
	for i, w := range c.words {
		l := strings.ToLower(w)
		switch {
		case !c.lits[i] || c.globs[i]:
			return false
		case strings.Contains(l, "file://") || strings.Contains(l, "fileb://") || strings.HasPrefix(l, "@"):
			return false // (aws and az read the file and send it)
		case cloudNotRead().MatchString(l):
			return false
		case strings.HasPrefix(l, "-"):
			name, _, _ := strings.Cut(l, "=")
			if cloudElsewhere[name] {
				return false
			}
		case cloudReadVerb(l):
			read = true
		}
	}
	return read
}

// cloudReadVerb reports whether w is a verb of a cloud tool that only
// reads: list and describe in their spellings (aws's describe-*, list-*,
// get-*), status and logs.
func cloudReadVerb(w string) bool {
	switch w {
	case "list", "ls", "describe", "show", "status", "logs", "whoami", "info", "inspect", "get-value":
		return true
	}
	return strings.HasPrefix(w, "describe-") || strings.HasPrefix(w, "list-") || strings.HasPrefix(w, "get-")
}

// cloudNotRead matches a word of a cloud tool's command that makes it
// more than a read: a verb that changes, runs, sends or moves something,
// and anything that names a secret or what holds one (a function's or a
// task's environment, app settings, variables, keys, tokens).
var cloudNotRead = lazyRegexp(`^(create|delete|update|put|set|add|remove|rm|start|stop|restart|reboot|terminate|run|exec|ssh|scp|deploy|destroy|apply|attach|detach|associate|disassociate|modify|enable|disable|register|deregister|import|export|copy|cp|mv|sync|reset|resize|scale|tag|untag|invoke|send|publish|upload|download|login|logout|connect|open|promote|rollback|restore|revoke|authorize|grant|accept|reject|cancel|replace|patch|move|rename|purge|release|allocate|request|generate|execute|test|assume|sign|encrypt|decrypt|rotate|batch|link|unlink|init|up|down|redeploy|shell|console|proxy|port-forward|tunnel|mount|use|switch|configure|wait|tail|watch|edit|browse|unset|env|variables|config|auth|iam-token|presign)(-|$)|secret|token|passw|credential|key|cert|appsetting|connection-?string|environment|parameter|get-function|get-object|get-console|get-login|get-federation|get-open-id|task-definition|password-data|with-decryption|kubeconfig|signature|bearer`)

// cloudElsewhere are the options of cloud tools that send the request to
// another endpoint than the tool's service.
var cloudElsewhere = map[string]bool{"--endpoint-url": true, "--endpoint": true, "--api-endpoint": true, "--server": true,
	"--url": true, "--host": true, "--api-url": true, "--api-host": true, "--base-url": true, "--access-token-file": true,
	"--token": true, "--access-token": true, "--ca-bundle": true, "--no-verify-ssl": true, "--proxy": true}

// kubectlReads only read the cluster.
var kubectlReads = map[string]bool{"get": true, "describe": true, "logs": true, "top": true, "explain": true, "version": true,
	"api-resources": true, "api-versions": true, "cluster-info": true, "events": true, "wait": true, "diff": true, "auth": true,
	"completion": true, "help": true, "plugin": false}

func kubectlHandler(c *cmdRun) {
	if len(c.ops) == 0 {
		return
	}
	verb := c.ops[0].word
	switch {
	case verb == "completion" || verb == "help" || verb == "version" && c.hasWord("--client"):
		c.dropNetwork() // nothing of the cluster
	case verb == "auth" && (len(c.ops) < 2 || c.ops[1].word != "can-i" && c.ops[1].word != "whoami"):
		c.add(Effect{Kind: EffSystem, What: c.prog + " auth changes the cluster's roles"})
	case verb == "get" && c.rawSecret():
		c.add(Effect{Kind: EffSecret, What: "kubectl get --raw reads any path of the cluster's API, its secrets among them"})
	case kubectlReads[verb] && verb != "diff": // (diff runs $KUBECTL_EXTERNAL_DIFF)
		c.serviceRead(c.prog+" "+verb+" reads the cluster it is set up for", "-s", "--server")
	case verb == "exec":
		c.containerCommand("kubectl exec", 1)
	case verb == "run" || verb == "attach" || verb == "debug" || verb == "cp" || verb == "port-forward" || verb == "proxy":
		c.add(Effect{Kind: EffExec, What: c.prog + " " + verb + " runs or reaches code in the cluster"})
		c.add(Effect{Kind: EffSystem, What: c.prog + " " + verb})
	case verb == "config":
		sub := ""
		if len(c.ops) > 1 {
			sub = c.ops[1].word
		}
		switch sub {
		case "view", "get-contexts", "current-context", "get-clusters", "get-users":
			c.dropNetwork() // the kubeconfig, read here
			if sub == "view" && c.hasWord("--raw") {
				c.add(Effect{Kind: EffSecret, What: "kubectl config view --raw prints credentials"})
			}
		default:
			c.add(Effect{Kind: EffPersist, Path: c.abs("~/.kube/config"), What: c.prog + " config changes which cluster it talks to"})
		}
	default:
		c.add(Effect{Kind: EffSystem, What: c.prog + " " + verb + " changes the cluster"})
	}
}

// rawSecret reports whether kubectl get --raw names an API path that may
// hold secrets, or one not known until it runs.
func (c *cmdRun) rawSecret() bool {
	for i, w := range c.words {
		v, ok := strings.CutPrefix(w, "--raw=")
		if w == "--raw" && i+1 < len(c.words) {
			v, ok = c.words[i+1], c.lits[i+1]
		} else if ok {
			ok = c.lits[i]
		}
		if w == "--raw" || strings.HasPrefix(w, "--raw=") {
			l := strings.ToLower(v)
			return !ok || strings.Contains(l, "secret") || strings.Contains(l, "token") || !strings.HasPrefix(l, "/")
		}
	}
	return false
}

// containerCommand judges the command `docker exec` or `kubectl exec`
// runs in a container (the words after "--", or after the container's
// name, the skip'th operand after the verb) as one on a machine agate does
// not know (judgeRemote): it runs code there, and changes the container
// unless every part only reads; the programs it runs join the prefix, so
// that a person's answer for `ls` there does not cover `rm`.
func (c *cmdRun) containerCommand(what string, skip int) {
	var words []string
	var lits []bool
	if i := slices.Index(c.words, "--"); i >= 0 {
		words, lits = c.words[i+1:], c.lits[i+1:]
	} else if n := 1 + skip; len(c.ops) > n {
		at := c.ops[n].at
		words, lits = c.words[at:], c.lits[at:]
	}
	if len(words) == 0 {
		c.add(Effect{Kind: EffExec, What: what + " runs code in a container"})
		c.add(Effect{Kind: EffSystem, What: what})
		return
	}
	key, readOnly, named := c.judgeRemote(words, lits)
	c.prefix = append(c.prefix, key)
	c.add(Effect{Kind: EffExec, What: what + " runs " + named + " in a container"})
	if !readOnly {
		c.add(Effect{Kind: EffSystem, What: named + " may change the container"})
	}
}

// helmReads read the releases in the cluster; helmLocal work on a chart
// on the disk, or print helm's own settings.
var (
	helmReads = map[string]bool{"list": true, "ls": true, "status": true, "history": true, "hist": true}
	helmLocal = map[string]bool{"template": true, "lint": true, "show": true, "inspect": true, "version": true, "env": true,
		"completion": true, "help": true, "package": true, "verify": true}
)

// helmHandler: helm's reads of the cluster read the service it is set up
// for and change nothing; its work on a chart on the disk reaches no
// cluster (a chart named by a repository or a URL is downloaded); helm
// get prints a release's values, which hold its secrets. Its aliases
// (kustomize, skaffold, argocd...) stay as their entry says.
func helmHandler(c *cmdRun) {
	if c.prog != "helm" || len(c.ops) == 0 {
		return
	}
	verb := c.ops[0].word
	switch {
	case helmReads[verb] || verb == "get":
		c.dropKind(EffSystem)
		c.serviceRead("helm "+verb+" reads the releases of the cluster it is set up for", "--kube-apiserver", "--kubeconfig")
		if verb == "get" {
			c.add(Effect{Kind: EffSecret, What: "helm get prints a release's values, which hold its secrets"})
		}
	case helmLocal[verb] || (verb == "repo" || verb == "dependency" || verb == "dep") && len(c.ops) > 1 && c.ops[1].word == "list":
		c.dropKind(EffSystem)
		c.helmValueFiles()
		if !helmCharts[verb] {
			c.dropNetwork() // helm's own settings and files
			return
		}
		// The chart is the last operand that is not an option's value: a
		// folder or a packaged chart on the disk is read here; a
		// repository's or a URL's is downloaded.
		var chart *operand
		for i := range c.ops[1:] {
			op := &c.ops[1+i]
			if op.at > 0 {
				prev := c.words[op.at-1]
				if strings.HasPrefix(prev, "-") && !strings.Contains(prev, "=") && !helmBoolFlags[prev] {
					continue // the value of the option before it
				}
			}
			chart = op
		}
		if chart != nil && chart.lit && !strings.Contains(chart.word, "://") && !c.hasWord("--repo") {
			if w := chart.word; w == "." || w == ".." || strings.HasPrefix(w, "./") || strings.HasPrefix(w, "../") ||
				strings.HasPrefix(w, "/") || strings.HasSuffix(w, ".tgz") {
				c.pathEffect(EffRead, w, true, Effect{})
				c.dropNetwork()
			}
		}
	}
}

// helmBoolFlags are helm's options that take no value: the word after one
// is an operand.
var helmBoolFlags = map[string]bool{"--debug": true, "--dry-run": true, "--include-crds": true, "--skip-tests": true,
	"--validate": true, "--strict": true, "-q": true, "--quiet": true, "--dependency-update": true, "--devel": true,
	"--verify": true, "--skip-crds": true, "--no-hooks": true, "--is-upgrade": true, "--generate-name": true, "-g": true,
	"--with-subcharts": true, "--skip-schema-validation": true, "--enable-dns": true}

// helmValueFiles records the files helm reads values from (-f, --values,
// --set-file K=PATH): a chart renders what they hold, a secret's too.
func (c *cmdRun) helmValueFiles() {
	for i := 0; i < len(c.words); i++ {
		w, lit := c.words[i], c.lits[i]
		name, val, attached := strings.Cut(w, "=")
		switch name {
		case "-f", "--values", "--set-file":
		default:
			if v, ok := strings.CutPrefix(w, "-f"); ok && v != "" && !strings.HasPrefix(v, "-") {
				name, val, attached = "-f", v, true
			} else {
				continue
			}
		}
		if !attached {
			if i+1 >= len(c.words) {
				break
			}
			i++
			val, lit = c.words[i], c.lits[i]
		}
		for _, part := range strings.Split(val, ",") {
			if name == "--set-file" {
				_, part, _ = strings.Cut(part, "=")
			}
			if part != "" && part != "-" {
				c.pathEffect(EffRead, part, lit, Effect{})
			}
		}
	}
}

// helmCharts are helm's local commands that take a chart.
var helmCharts = map[string]bool{"template": true, "lint": true, "show": true, "inspect": true, "package": true, "verify": true}

// tfPlanHandler: terraform plan reads the infrastructure it is set up for
// (and runs the providers, the project's code); refresh, test and get,
// which share its entry, change state, make infrastructure or download.
func tfPlanHandler(c *cmdRun) {
	if len(c.prefix) > 1 && c.prefix[len(c.prefix)-1] == "plan" {
		c.serviceRead("terraform plan reads the infrastructure it is set up for")
	}
}

// serviceRead marks the command's network effects that name no host
// (its entry's own) as a read of the service the tool is set up for,
// unless one of the options that send it elsewhere is given.
func (c *cmdRun) serviceRead(what string, elsewhere ...string) {
	for _, w := range c.words {
		for _, e := range elsewhere {
			if w == e || strings.HasPrefix(w, e+"=") {
				return
			}
		}
	}
	for i := range c.effects {
		if e := &c.effects[i]; e.Kind == EffNetwork && e.Host == "" && e.What == "" {
			e.Service, e.What = true, what
		}
	}
}

// dropNetwork takes back the network effects that name no host: the
// entry's own, for a command that reaches nothing.
func (c *cmdRun) dropNetwork() {
	c.effects = slices.DeleteFunc(c.effects, func(e Effect) bool { return e.Kind == EffNetwork && e.Host == "" && e.What == "" })
}

// dropKind takes back the entry's own effects of kind k.
func (c *cmdRun) dropKind(k EffectKind) {
	c.effects = slices.DeleteFunc(c.effects, func(e Effect) bool { return e.Kind == k })
}

// hasWord reports whether the command's words hold w.
func (c *cmdRun) hasWord(w string) bool { return slices.Contains(c.words, w) }

// opensslHandler reads openssl's command and the options that name files
// and hosts.
func opensslHandler(c *cmdRun) {
	if len(c.words) == 0 {
		c.add(Effect{Kind: EffExec, What: "openssl reads commands from its input"})
		return
	}
	cmd := c.words[0]
	c.prefix = append(c.prefix, cmd)
	words, lits := c.words[1:], c.lits[1:]
	switch cmd {
	case "version", "help", "list", "rand", "errstr", "ciphers", "speed", "prime", "passwd":
		for i, w := range words {
			if w == "-out" && i+1 < len(words) {
				c.writePath(words[i+1], lits[i+1], Effect{})
			}
		}
		return
	case "s_client", "s_time":
		for i, w := range words {
			if w == "-connect" && i+1 < len(words) {
				h := hostOf(words[i+1])
				c.add(Effect{Kind: EffNetwork, Host: h})
				c.add(Effect{Kind: EffUpload, Host: h})
				return
			}
		}
		c.add(Effect{Kind: EffNetwork, Host: "localhost"})
		c.add(Effect{Kind: EffUpload, Host: "localhost"})
		return
	case "s_server":
		c.add(Effect{Kind: EffNetwork, What: "openssl s_server listens for connections"})
		c.add(Effect{Kind: EffExec, What: "openssl s_server can run commands for its clients"})
		return
	case "x509", "req", "genrsa", "genpkey", "rsa", "ec", "pkey", "pkcs12", "pkcs7", "pkcs8", "dgst", "sha256", "sha1", "md5",
		"enc", "base64", "verify", "crl", "asn1parse", "cms", "smime", "ocsp", "dhparam", "ecparam", "kdf", "mac", "pkeyutl", "rsautl", "sha512":
	default:
		c.unknown("openssl " + cmd + " is not a command agate knows")
		return
	}
	for i := 0; i < len(words); i++ {
		w := words[i]
		switch w {
		case "-in", "-key", "-CA", "-CAkey", "-signkey", "-inkey", "-config", "-extfile", "-CAfile", "-untrusted", "-certfile", "-verify", "-prverify", "-sigfile", "-kfile", "-pass":
			if i+1 < len(words) {
				v := words[i+1]
				if w == "-pass" || w == "-passin" {
					if f, ok := strings.CutPrefix(v, "file:"); ok {
						c.pathEffect(EffRead, f, lits[i+1], Effect{})
					}
				} else {
					c.pathEffect(EffRead, v, lits[i+1], Effect{})
				}
				i++
			}
		case "-out", "-keyout", "-signature":
			if i+1 < len(words) {
				c.writePath(words[i+1], lits[i+1], Effect{})
				i++
			}
		case "-engine", "-provider", "-provider-path":
			c.add(Effect{Kind: EffExec, What: "openssl " + w + " loads code"})
			i++
		default:
			if !strings.HasPrefix(w, "-") {
				c.pathEffect(EffRead, w, lits[i], Effect{})
			}
		}
	}
}

// noOpsExecHandler: with no operand the program reads commands from its
// input (hping3's Tcl shell).
func noOpsExecHandler(c *cmdRun) {
	if len(c.ops) == 0 && !c.has("-v", "--version", "-V", "-h", "--help") {
		c.add(Effect{Kind: EffExec, What: c.prog + " with no operand reads commands from its input"})
	}
}

// sshfsCodeOptions are mount options of sshfs that run a program.
var sshfsCodeOptions = map[string]bool{"ssh_command": true, "sftp_server": true, "proxycommand": true, "localcommand": true,
	"permitlocalcommand": true, "knownhostscommand": true, "directport": false, "passive": true, "slave": true, "password_stdin": false}

// sshfsHandler: -o ssh_command=PROG (and the ssh options that run a
// command, given as -o ProxyCommand=...) run programs.
func sshfsHandler(c *cmdRun) {
	for _, o := range c.opts {
		if o.name != "-o" {
			continue
		}
		if !o.lit {
			c.add(Effect{Kind: EffExec, What: c.prog + " -o with options not known until it runs"})
			continue
		}
		for _, kv := range strings.Split(o.val, ",") {
			k, _, _ := strings.Cut(kv, "=")
			if sshfsCodeOptions[strings.ToLower(strings.TrimSpace(k))] {
				c.add(Effect{Kind: EffExec, What: c.prog + " -o " + k + " runs a program"})
			}
		}
	}
}

// --- kubectl get secret ---

// kubectlSecretsHandler is kubectl's handler, and what it does not see:
// get, describe and edit of secrets print their data.
func kubectlSecretsHandler(c *cmdRun) {
	kubectlHandler(c)
	if len(c.ops) < 2 {
		return
	}
	switch c.ops[0].word {
	case "get", "describe", "edit", "view-secret":
	default:
		return
	}
	for _, op := range c.ops[1:] {
		w := strings.ToLower(op.word)
		for _, kind := range strings.Split(w, ",") {
			kind, _, _ = strings.Cut(kind, "/")
			if kind == "secret" || kind == "secrets" || kind == "sealedsecrets" || strings.HasPrefix(kind, "secrets.") || kind == "all" && c.has("-o", "--output") {
				c.add(Effect{Kind: EffSecret, What: c.prog + " " + c.ops[0].word + " " + op.word + " prints secrets"})
				return
			}
		}
	}
}

// localGetHandler (curl, wget): a plain GET or HEAD of a server on this
// machine's loopback (localhost, 127.0.0.0/8, ::1), the development
// server a person runs, is marked Local: it flows as a read. Not local:
// another method, a request that carries a credential or data (data is an
// upload already), one sent elsewhere than its URL says (a proxy,
// --resolve, --connect-to, a unix socket, a redirect followed), a config
// file's options, and the ports of daemons whose HTTP API controls the
// machine or hands out secrets (localPortsAsk).
func localGetHandler(c *cmdRun) {
	for _, o := range c.opts {
		names := o.spec.names
		switch {
		case slices.Contains(names, "-X") || slices.Contains(names, "--method"):
			if m := strings.ToUpper(o.val); !o.lit || m != "GET" && m != "HEAD" {
				return
			}
		case slices.Contains(names, "-H") || slices.Contains(names, "--header"):
			k, _, _ := strings.Cut(strings.ToLower(o.val), ":")
			k = strings.TrimSpace(k)
			if !o.lit || k == "authorization" || k == "cookie" || k == "proxy-authorization" || strings.Contains(k, "token") ||
				strings.Contains(k, "key") || strings.Contains(k, "secret") || strings.Contains(k, "auth") {
				return
			}
		case slices.ContainsFunc(names, func(n string) bool { return localGetOff[n] }):
			return
		}
	}
	local := map[string]bool{}
	for _, op := range c.ops {
		if op.role != roleURL {
			continue
		}
		host, port, ok := loopbackURL(op.word)
		if !op.lit || !ok {
			continue
		}
		if localPortsAsk[port] {
			return
		}
		local[host] = true
	}
	for i := range c.effects {
		if e := &c.effects[i]; e.Kind == EffNetwork && local[e.Host] {
			e.Local = true
		}
	}
}

// localGetOff are the options of curl and wget after which a request is
// not a plain GET of the URL's own host: it goes elsewhere (a proxy,
// --resolve, a socket), follows redirects, carries a credential, or
// takes options from a file.
var localGetOff = map[string]bool{
	"-x": true, "--proxy": true, "--preproxy": true, "--socks4": true, "--socks4a": true, "--socks5": true, "--socks5-hostname": true,
	"--resolve": true, "--connect-to": true, "--unix-socket": true, "--abstract-unix-socket": true, "--interface": true,
	"-L": true, "--location": true, "--location-trusted": true, "-K": true, "--config": true, "-e": true, "--execute": true,
	"-u": true, "--user": true, "--oauth2-bearer": true, "-b": true, "--cookie": true, "--netrc": true, "-n": true,
	"--netrc-file": true, "--netrc-optional": true, "-E": true, "--cert": true, "--key": true,
	"--http-user": true, "--http-password": true, "--password": true, "--load-cookies": true, "--certificate": true,
	"-T": true, "--upload-file": true, "--post-data": true, "--post-file": true, "--body-data": true, "--body-file": true,
	"--input-file": true,
}

// localPortsAsk are the loopback ports whose HTTP API controls the machine
// or hands out secrets: Docker's and its older port, etcd, the
// Kubernetes API server and `kubectl proxy`, the kubelet, Chrome's and
// Node's debuggers, Vault, Consul.
var localPortsAsk = map[string]bool{"2375": true, "2376": true, "4243": true, "2379": true, "2380": true, "6443": true,
	"8001": true, "10250": true, "10255": true, "9222": true, "9229": true, "8200": true, "8500": true}

// loopbackURL returns the host and port of a URL on this machine's
// loopback, written plainly: localhost, an address in 127.0.0.0/8, ::1.
// Other spellings of them (decimal, hex, 0.0.0.0) are not taken as
// loopback, and ask as any host does.
func loopbackURL(s string) (host, port string, ok bool) {
	t := s
	if !strings.Contains(t, "://") {
		t = "http://" + t
	}
	u, err := url.Parse(t)
	if err != nil || u.Host == "" || u.User != nil {
		return "", "", false
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", "", false
	}
	host = strings.ToLower(u.Hostname())
	port = u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	if host == "localhost" || host == "::1" {
		return host, port, true
	}
	if a, err := netip.ParseAddr(host); err == nil && a.Is4() && a.IsLoopback() && a.String() == host {
		return host, port, true
	}
	return "", "", false
}
